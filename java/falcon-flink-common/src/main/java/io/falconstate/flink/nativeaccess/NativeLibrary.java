/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Loads {@code libfalcon_jni.so}, once per class loader, from the first of:
 *
 * <ol>
 *   <li>the file named by the system property {@value #LIBRARY_PATH_PROPERTY} (exact path; when the
 *       property is set and that file cannot be loaded, that is the result: no fallback, so a
 *       misconfiguration is never hidden by another copy of the library; a property set to an empty
 *       value is such a misconfiguration too);
 *   <li>{@value #LIBRARY_FILE_NAME} in the directory of the jar holding this class (for a Flink
 *       installation, {@code $FLINK_HOME/lib});
 *   <li>{@value #LIBRARY_FILE_NAME} in each directory of {@code java.library.path}.
 * </ol>
 *
 * <p>Nothing is bundled in the jar or extracted to a temporary directory. A JVM binds a native
 * library file to one class loader: loading from a second class loader reports the JVM's refusal as
 * a failed attempt instead of throwing. That is why the jar belongs in Flink's {@code lib/}, not in
 * a job jar.
 *
 * <p>Thread-safe: concurrent callers block until the first load attempt finishes and all see its
 * result.
 */
public final class NativeLibrary {

    public static final String LIBRARY_PATH_PROPERTY = "falcon.native.library";
    public static final String LIBRARY_FILE_NAME = "libfalcon_jni.so";

    private static final Object LOCK = new Object();
    @Nullable private static volatile NativeLoadResult result;

    private NativeLibrary() {}

    /** Loads the library if not done yet in this class loader; never throws. */
    public static NativeLoadResult load() {
        NativeLoadResult current = result;
        if (current != null) {
            return current;
        }
        synchronized (LOCK) {
            if (result == null) {
                result =
                        loadFrom(
                                System.getProperty(LIBRARY_PATH_PROPERTY),
                                jarDirectory(),
                                System.getProperty("java.library.path", ""),
                                System::load);
            }
            return result;
        }
    }

    /** True when {@link #load()} succeeded in this class loader. */
    public static boolean isLoaded() {
        return load().isLoaded();
    }

    /**
     * The search itself, with its inputs explicit so every branch can be tested. {@code loader} is
     * {@code System::load} in production.
     */
    static NativeLoadResult loadFrom(
            @Nullable String propertyValue,
            @Nullable File jarDirectory,
            String javaLibraryPath,
            Consumer<String> loader) {
        List<String> attempts = new ArrayList<>();
        if (propertyValue != null && propertyValue.trim().isEmpty()) {
            // Set, but to nothing (an unset shell variable, say): as final as any other value.
            attempts.add(
                    "-D"
                            + LIBRARY_PATH_PROPERTY
                            + "=: empty; name the library file or remove the property");
            return NativeLoadResult.failure(attempts);
        }
        if (propertyValue != null) {
            File file = new File(propertyValue.trim());
            String place = "-D" + LIBRARY_PATH_PROPERTY + "=" + file;
            if (tryLoad(place, file, loader, attempts)) {
                return verified(file, attempts);
            }
            // Set but unusable: report exactly that, no fallback.
            return NativeLoadResult.failure(attempts);
        }
        attempts.add("-D" + LIBRARY_PATH_PROPERTY + ": not set");

        if (jarDirectory == null) {
            attempts.add("jar directory: not running from a jar");
        } else if (tryLoad(
                "jar directory " + jarDirectory,
                new File(jarDirectory, LIBRARY_FILE_NAME),
                loader,
                attempts)) {
            return verified(new File(jarDirectory, LIBRARY_FILE_NAME), attempts);
        }

        boolean anyDirectory = false;
        for (String dir : javaLibraryPath.split(File.pathSeparator)) {
            if (dir.trim().isEmpty()) {
                continue;
            }
            anyDirectory = true;
            File file = new File(dir.trim(), LIBRARY_FILE_NAME);
            if (tryLoad("java.library.path entry " + dir.trim(), file, loader, attempts)) {
                return verified(file, attempts);
            }
        }
        if (!anyDirectory) {
            attempts.add("java.library.path: empty");
        }
        return NativeLoadResult.failure(attempts);
    }

    private static boolean tryLoad(
            String place, File file, Consumer<String> loader, List<String> attempts) {
        if (file.isDirectory()) {
            attempts.add(place + ": " + file + " is a directory");
            return false;
        }
        if (!file.isFile()) {
            attempts.add(place + ": " + file + " does not exist");
            return false;
        }
        try {
            loader.accept(file.getAbsolutePath());
            attempts.add(place + ": loaded " + file.getAbsolutePath());
            return true;
        } catch (LinkageError | SecurityException e) {
            // LinkageError, not only UnsatisfiedLinkError: a library whose JNI_OnLoad cannot bind
            // this jar's natives (a jar/.so version skew) surfaces as NoSuchMethodError or
            // NoClassDefFoundError, and must fall back to the stock backend like any other failure.
            attempts.add(
                    place
                            + ": "
                            + file.getAbsolutePath()
                            + " failed to load: "
                            + e.getClass().getSimpleName()
                            + ": "
                            + e.getMessage());
            return false;
        }
    }

    /**
     * A loaded library must answer and be the version, with the JNI layouts, this jar was built
     * with.
     */
    private static NativeLoadResult verified(File file, List<String> attempts) {
        return verified(file, attempts, NativeLayout.LAYOUT_VERSION);
    }

    /** As above, against {@code jarLayoutVersion} (tests inject another one). */
    static NativeLoadResult verified(File file, List<String> attempts, int jarLayoutVersion) {
        String path = file.getAbsolutePath();
        String nativeVersion;
        String nativeNumber;
        try {
            nativeVersion = FalconNative.version();
            nativeNumber = FalconNative.versionNumber();
        } catch (LinkageError e) {
            attempts.add(path + ": loaded but its natives are not bound: " + e.getMessage());
            return NativeLoadResult.failure(attempts);
        }
        String jarVersion = jarVersion();
        if (jarVersion != null && !jarVersion.equals(nativeNumber)) {
            attempts.add(
                    path
                            + ": version "
                            + nativeNumber
                            + " does not match the jar's version "
                            + jarVersion);
            return NativeLoadResult.failure(attempts);
        }
        int nativeLayout;
        try {
            nativeLayout = FalconNative.layoutVersion();
        } catch (LinkageError e) {
            attempts.add(path + ": loaded but reports no JNI layout version: " + e.getMessage());
            return NativeLoadResult.failure(attempts);
        }
        if (nativeLayout != jarLayoutVersion) {
            attempts.add(
                    path
                            + ": JNI layout version "
                            + nativeLayout
                            + " does not match the jar's JNI layout version "
                            + jarLayoutVersion);
            return NativeLoadResult.failure(attempts);
        }
        return NativeLoadResult.success(path, nativeVersion, attempts);
    }

    /** The version this jar was built with (Maven-filtered resource), or null if unknown. */
    @Nullable
    public static String jarVersion() {
        try (InputStream in =
                NativeLibrary.class.getResourceAsStream(
                        "/io/falconstate/flink/falcon-version.properties")) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version");
            return version == null || version.startsWith("${") ? null : version;
        } catch (IOException e) {
            return null;
        }
    }

    /** The directory of the jar this class was loaded from; null when not loaded from a jar. */
    @Nullable
    static File jarDirectory() {
        try {
            CodeSource source = NativeLibrary.class.getProtectionDomain().getCodeSource();
            URL location = source == null ? null : source.getLocation();
            if (location == null || !"file".equals(location.getProtocol())) {
                return null;
            }
            File file = new File(location.toURI());
            return file.isFile() ? file.getParentFile() : null;
        } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
            return null;
        }
    }
}
