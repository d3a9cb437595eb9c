/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/** Every branch of the loader. The test command points -Dfalcon.native.library at the build. */
class NativeLibraryTest {

    private static File realLibrary;

    @BeforeAll
    static void requireTheBuiltLibrary() {
        String property = System.getProperty(NativeLibrary.LIBRARY_PATH_PROPERTY);
        assertThat(property)
                .as("the test command must pass -D%s", NativeLibrary.LIBRARY_PATH_PROPERTY)
                .isNotBlank();
        realLibrary = new File(property);
        assertThat(realLibrary).isFile();
    }

    @Test
    void loadsTheLibraryNamedByTheProperty() {
        NativeLoadResult result = NativeLibrary.load();
        assertThat(result.isLoaded()).as(result.toString()).isTrue();
        assertThat(result.path()).isEqualTo(realLibrary.getAbsolutePath());
        assertThat(result.nativeVersion()).startsWith(NativeLibrary.jarVersion() + " (");
        assertThat(FalconNative.versionNumber()).isEqualTo(NativeLibrary.jarVersion());
    }

    @Test
    void loadIsIdempotent() {
        NativeLoadResult first = NativeLibrary.load();
        NativeLoadResult second = NativeLibrary.load();
        assertThat(second).isSameAs(first);
        assertThat(NativeLibrary.isLoaded()).isTrue();
    }

    @Test
    void jarVersionMatchesTheVersionFile() throws IOException {
        // java/falcon-flink-<minor> -> repository root
        Path versionFile = Paths.get("../../VERSION");
        String expected =
                new String(Files.readAllBytes(versionFile), StandardCharsets.UTF_8).trim();
        assertThat(NativeLibrary.jarVersion()).isEqualTo(expected);
    }

    @Test
    void aBogusPropertyIsTheAnswerWithoutFallback(@TempDir Path dir) throws IOException {
        Path copy = copyLibraryInto(dir);
        RecordingLoader loader = new RecordingLoader();
        NativeLoadResult result =
                NativeLibrary.loadFrom(
                        "/nonexistent/libfalcon_jni.so", dir.toFile(), dir.toString(), loader);
        assertThat(result.isLoaded()).isFalse();
        assertThat(loader.paths).isEmpty();
        assertThat(result.attempts()).hasSize(1);
        assertThat(result.describeAttempts())
                .contains("-Dfalcon.native.library=/nonexistent/libfalcon_jni.so")
                .contains("does not exist")
                .doesNotContain(copy.toString());
    }

    @Test
    void aPropertyNamingADirectorySaysSo(@TempDir Path dir) throws IOException {
        copyLibraryInto(dir);
        RecordingLoader loader = new RecordingLoader();
        NativeLoadResult result = NativeLibrary.loadFrom(dir.toString(), dir.toFile(), "", loader);
        assertThat(result.isLoaded()).isFalse();
        assertThat(loader.paths).isEmpty();
        assertThat(result.describeAttempts())
                .isEqualTo("-Dfalcon.native.library=" + dir + ": " + dir + " is a directory");
    }

    /** An empty value is set, so it is final like any other: no fallback to the jar directory. */
    @Test
    void anEmptyPropertyIsAnErrorWithoutFallback(@TempDir Path dir) throws IOException {
        copyLibraryInto(dir);
        RecordingLoader loader = new RecordingLoader();
        for (String empty : new String[] {"", "  "}) {
            NativeLoadResult result = NativeLibrary.loadFrom(empty, dir.toFile(), "", loader);
            assertThat(result.isLoaded()).isFalse();
            assertThat(result.describeAttempts())
                    .isEqualTo(
                            "-Dfalcon.native.library=: empty; name the library file or remove the"
                                    + " property");
        }
        assertThat(loader.paths).isEmpty();
    }

    @Test
    void aPropertyNamingANonLibraryReportsTheLinkError(@TempDir Path dir) throws IOException {
        Path notALibrary = dir.resolve("libfalcon_jni.so");
        Files.write(notALibrary, "not an ELF file".getBytes(StandardCharsets.UTF_8));
        NativeLoadResult result =
                NativeLibrary.loadFrom(notALibrary.toString(), null, "", System::load);
        assertThat(result.isLoaded()).isFalse();
        assertThat(result.describeAttempts())
                .contains(notALibrary.toString())
                .contains("failed to load");
    }

    @Test
    void usesTheJarDirectoryWhenThePropertyIsUnset(@TempDir Path dir) throws IOException {
        Path copy = copyLibraryInto(dir);
        NativeLibrary.load(); // binds the natives in this class loader
        RecordingLoader loader = new RecordingLoader();
        NativeLoadResult result = NativeLibrary.loadFrom(null, dir.toFile(), "", loader);
        assertThat(result.isLoaded()).as(result.toString()).isTrue();
        assertThat(loader.paths).containsExactly(copy.toAbsolutePath().toString());
        assertThat(result.attempts().get(0)).contains("not set");
        assertThat(result.path()).isEqualTo(copy.toAbsolutePath().toString());
    }

    @Test
    void fallsBackToJavaLibraryPath(@TempDir Path dir) throws IOException {
        Path jarDir = Files.createDirectory(dir.resolve("lib"));
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Path withLib = Files.createDirectory(dir.resolve("native"));
        Path copy = copyLibraryInto(withLib);
        NativeLibrary.load();
        RecordingLoader loader = new RecordingLoader();
        String path = empty + File.pathSeparator + File.pathSeparator + withLib;
        NativeLoadResult result = NativeLibrary.loadFrom(null, jarDir.toFile(), path, loader);
        assertThat(result.isLoaded()).as(result.toString()).isTrue();
        assertThat(loader.paths).containsExactly(copy.toAbsolutePath().toString());
        assertThat(result.describeAttempts())
                .contains("jar directory " + jarDir)
                .contains("java.library.path entry " + empty + ": ")
                .contains("does not exist");
    }

    @Test
    void aFailingCandidateFallsThroughToTheNextPlace(@TempDir Path dir) throws IOException {
        Path jarDir = Files.createDirectory(dir.resolve("lib"));
        Path withLib = Files.createDirectory(dir.resolve("native"));
        Path badCopy = copyLibraryInto(jarDir);
        Path goodCopy = copyLibraryInto(withLib);
        NativeLibrary.load();
        RecordingLoader loader = new RecordingLoader();
        loader.failOn = badCopy.toAbsolutePath().toString();
        NativeLoadResult result =
                NativeLibrary.loadFrom(null, jarDir.toFile(), withLib.toString(), loader);
        assertThat(result.isLoaded()).isTrue();
        assertThat(result.path()).isEqualTo(goodCopy.toAbsolutePath().toString());
        assertThat(result.describeAttempts())
                .contains("failed to load: UnsatisfiedLinkError: simulated");
    }

    @Test
    void aLibraryWhoseNativesDoNotBindFallsThrough(@TempDir Path dir) throws IOException {
        // A JNI_OnLoad that fails to register this jar's natives throws NoSuchMethodError from
        // System.load: that must be a failed attempt, not an escaping error.
        Path jarDir = Files.createDirectory(dir.resolve("lib"));
        Path badCopy = copyLibraryInto(jarDir);
        NativeLoadResult result =
                NativeLibrary.loadFrom(
                        null,
                        jarDir.toFile(),
                        "",
                        path -> {
                            throw new NoSuchMethodError("nativeCreate");
                        });
        assertThat(result.isLoaded()).isFalse();
        assertThat(result.describeAttempts())
                .contains(badCopy.toAbsolutePath().toString())
                .contains("NoSuchMethodError: nativeCreate");
    }

    @Test
    void aLibraryWithAnotherJniLayoutIsRefusedWithAClearMessage() {
        NativeLibrary.load(); // binds the natives: the check asks the real library
        assertThat(FalconNative.layoutVersion()).isEqualTo(NativeLayout.LAYOUT_VERSION);
        int jarLayout = NativeLayout.LAYOUT_VERSION + 1;
        List<String> attempts = new ArrayList<>();
        attempts.add("-Dfalcon.native.library=" + realLibrary + ": loaded " + realLibrary);
        NativeLoadResult result = NativeLibrary.verified(realLibrary, attempts, jarLayout);
        assertThat(result.isLoaded()).isFalse();
        assertThat(result.path()).isNull();
        assertThat(result.attempts())
                .hasSize(2)
                .last()
                .isEqualTo(
                        realLibrary.getAbsolutePath()
                                + ": JNI layout version "
                                + NativeLayout.LAYOUT_VERSION
                                + " does not match the jar's JNI layout version "
                                + jarLayout);
        // The same library with the jar's own layout version is accepted.
        NativeLoadResult same =
                NativeLibrary.verified(realLibrary, new ArrayList<>(), NativeLayout.LAYOUT_VERSION);
        assertThat(same.isLoaded()).as(same.toString()).isTrue();
    }

    @Test
    void reportsEveryPlaceWhenNothingIsFound() {
        NativeLoadResult result =
                NativeLibrary.loadFrom(
                        null,
                        null,
                        "",
                        path -> {
                            throw new AssertionError("nothing should be loaded");
                        });
        assertThat(result.isLoaded()).isFalse();
        assertThat(result.path()).isNull();
        assertThat(result.attempts())
                .containsExactly(
                        "-Dfalcon.native.library: not set",
                        "jar directory: not running from a jar",
                        "java.library.path: empty");
        assertThat(result.toString()).startsWith("not loaded (tried: -Dfalcon.native.library");
    }

    private static Path copyLibraryInto(Path dir) throws IOException {
        Path target = dir.resolve(NativeLibrary.LIBRARY_FILE_NAME);
        Files.copy(realLibrary.toPath(), target);
        return target;
    }

    private static final class RecordingLoader implements Consumer<String> {
        final List<String> paths = new ArrayList<>();
        String failOn;

        @Override
        public void accept(String path) {
            if (path.equals(failOn)) {
                throw new UnsatisfiedLinkError("simulated");
            }
            paths.add(path);
        }
    }
}
