package io.falconstate.nexmark.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** {@code nexmark_runs.csv}: one {@link RunRecord} per line under {@link RunRecord#csvHeader()}. */
public final class RunsCsv {
    private RunsCsv() {}

    /** Writes (replaces) the file with the header and {@code runs}. */
    static void write(Path file, List<RunRecord> runs) throws IOException {
        try (BufferedWriter w =
                Files.newBufferedWriter(
                        file,
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            w.write(RunRecord.csvHeader());
            w.write('\n');
            for (RunRecord r : runs) {
                w.write(r.csvLine());
                w.write('\n');
            }
        }
    }

    /**
     * Reads a runs CSV written by the harness, also one of an older harness whose columns are a
     * prefix of today's (the later columns stay empty).
     */
    public static List<RunRecord> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !RunRecord.csvHeader().startsWith(lines.get(0))) {
            throw new IOException(file + " does not start with the runs CSV header");
        }
        List<RunRecord> runs = new ArrayList<>();
        for (String l : lines.subList(1, lines.size())) {
            if (!l.isEmpty()) {
                runs.add(RunRecord.parseCsv(l));
            }
        }
        return runs;
    }
}
