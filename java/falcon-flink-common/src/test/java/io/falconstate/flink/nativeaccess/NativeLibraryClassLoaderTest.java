/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A second class loader (as a child-first job class loader would be) gets a clear failure, never an
 * exception or a crash, because the JVM binds the library file to the first loader.
 */
class NativeLibraryClassLoaderTest {

    @Test
    void aSecondClassLoaderGetsAClearStatus() throws Exception {
        assertThat(NativeLibrary.load().isLoaded()).isTrue();

        URL classes = NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader isolated =
                new URLClassLoader(
                        new URL[] {classes}, ClassLoader.getSystemClassLoader().getParent())) {
            Class<?> otherLibrary = isolated.loadClass(NativeLibrary.class.getName());
            assertThat(otherLibrary).isNotSameAs(NativeLibrary.class);
            Method load = otherLibrary.getMethod("load");

            Object first = load.invoke(null);
            Object second = load.invoke(null);
            assertThat(second).isSameAs(first);

            boolean loaded = (Boolean) first.getClass().getMethod("isLoaded").invoke(first);
            String attempts = (String) first.getClass().getMethod("describeAttempts").invoke(first);
            assertThat(loaded).isFalse();
            assertThat(attempts).contains("failed to load").contains("another");
        }
        // The first loader is unaffected.
        assertThat(FalconNative.versionNumber()).isEqualTo(NativeLibrary.jarVersion());
    }
}
