/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.util.TimeUtils;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md lists exactly the options of {@link FalconOptions}, with their types and
 * defaults.
 */
class ConfigurationDocsTest {

    private static final Pattern ROW =
            Pattern.compile(
                    "^\\| `(state\\.backend\\.falcon\\.[^`]+)` \\| ([a-z]+) \\| `([^`]*)` \\| .+ \\|$");

    private static List<String> rows() throws Exception {
        File base = new File(System.getProperty("basedir", new File("").getAbsolutePath()));
        File doc = new File(base, "../../docs/configuration.md").getCanonicalFile();
        assertThat(doc).as("docs/configuration.md").isFile();
        return Files.readAllLines(doc.toPath(), StandardCharsets.UTF_8).stream()
                .filter(l -> l.startsWith("| `state.backend.falcon."))
                .collect(Collectors.toList());
    }

    @Test
    void everyOptionIsDocumentedWithItsTypeAndDefault() throws Exception {
        List<String> rows = rows();
        for (ConfigOption<?> option : FalconOptions.all()) {
            String type = option.defaultValue().getClass().getSimpleName().toLowerCase();
            assertThat(rows)
                    .as("row for %s", option.key())
                    .anyMatch(
                            row -> {
                                Matcher m = ROW.matcher(row);
                                return m.matches()
                                        && m.group(1).equals(option.key())
                                        && m.group(2).equals(type)
                                        && m.group(3).equals(shown(option.defaultValue()));
                            });
            assertThat(option.description().getBlocks())
                    .as("description of %s", option.key())
                    .isNotEmpty();
        }
    }

    /** A default as the table shows it: durations as Flink writes them ("50 ms"). */
    private static String shown(Object defaultValue) {
        return defaultValue instanceof Duration
                ? TimeUtils.formatWithHighestUnit((Duration) defaultValue)
                : String.valueOf(defaultValue);
    }

    @Test
    void everyDocumentedKeyExists() throws Exception {
        Set<String> documented = new TreeSet<>();
        for (String row : rows()) {
            Matcher m = ROW.matcher(row);
            assertThat(m.matches()).as("well-formed row: %s", row).isTrue();
            documented.add(m.group(1));
        }
        Set<String> defined =
                FalconOptions.all().stream()
                        .map(ConfigOption::key)
                        .collect(Collectors.toCollection(TreeSet::new));
        assertThat(documented).isEqualTo(defined);
        assertThat(defined).allMatch(k -> k.startsWith(FalconOptions.PREFIX));
    }
}
