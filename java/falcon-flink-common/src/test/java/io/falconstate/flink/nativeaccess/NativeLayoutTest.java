/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JNI contract, whole: every constant of {@link NativeLayout} against the library's own table
 * of the same names ({@code jni/native_layout.h}), through a native call. A constant changed on one
 * side only, added on one side only, or renamed, fails here.
 */
class NativeLayoutTest {

    @BeforeAll
    static void libraryIsLoaded() {
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    @Test
    void everySharedConstantHasTheSameNameAndValueOnBothSides() throws IllegalAccessException {
        Map<String, Long> jar = new TreeMap<>();
        for (Field field : NativeLayout.class.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isStatic(modifiers)
                    && Modifier.isFinal(modifiers)
                    && field.getType() == int.class) {
                jar.put(field.getName(), (long) field.getInt(null));
            }
        }
        Map<String, Long> library = new TreeMap<>();
        for (String line : FalconNative.layoutConstants().split("\n")) {
            int equals = line.indexOf('=');
            assertThat(equals).as("line '%s'", line).isPositive();
            Long previous =
                    library.put(
                            line.substring(0, equals), Long.parseLong(line.substring(equals + 1)));
            assertThat(previous).as("%s listed twice", line).isNull();
        }

        assertThat(jar).hasSizeGreaterThan(80);
        Map<String, String> differences = new TreeMap<>();
        Set<String> names = new TreeSet<>(jar.keySet());
        names.addAll(library.keySet());
        for (String name : names) {
            if (!Objects.equals(jar.get(name), library.get(name))) {
                differences.put(name, "jar " + jar.get(name) + ", library " + library.get(name));
            }
        }
        assertThat(differences)
                .as("constants that differ between NativeLayout and jni/native_layout.h")
                .isEmpty();
    }

    @Test
    void theLayoutVersionsAgree() {
        assertThat(FalconNative.layoutVersion()).isEqualTo(NativeLayout.LAYOUT_VERSION);
    }
}
