/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.log.FalconLog;
import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.runtime.util.EnvironmentInformation;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Refuses to run a Falcon jar on a Flink minor version it was not built for. Falcon's seam uses
 * Flink internals that change between minors (the state backend SPI, the RocksDB builder, {@code
 * TaskInfo} from class to interface): a jar built for one minor would fail on another with an
 * {@code IncompatibleClassChangeError} or {@code NoSuchMethodError} at the first record. Instead,
 * {@link FalconStateBackendFactory} and {@link FalconStateBackend#configure} check first and fail
 * with one {@code [FALCON]} message naming the running version and what to install. Patch versions
 * of one minor share the seam and pass.
 *
 * <p>Stateless and thread-safe.
 */
public final class FlinkVersionGuard {

    private static final String PROPERTIES = "/io/falconstate/flink/falcon-version.properties";

    /** The Flink minor versions that have a Falcon jar built for them. */
    @VisibleForTesting
    static final String[] SUPPORTED_MINORS = {"1.16", "1.17", "1.18", "1.19", "1.20"};

    private FlinkVersionGuard() {}

    /**
     * Throws {@link IllegalConfigurationException} with a {@code [FALCON]} message when the running
     * Flink's minor version is not the one this jar was built for; does nothing when either version
     * is unknown (a Flink built from source reports {@code <unknown>}).
     */
    public static void check() {
        String refusal = refusal(EnvironmentInformation.getVersion(), builtForVersion());
        if (refusal != null) {
            FalconLog.LOG.error(refusal);
            throw new IllegalConfigurationException(refusal);
        }
    }

    /** The Flink version this jar was compiled against (Maven-filtered), or null if unknown. */
    @Nullable
    public static String builtForVersion() {
        try (InputStream in = FlinkVersionGuard.class.getResourceAsStream(PROPERTIES)) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("flink.version");
            return version == null || version.startsWith("${") ? null : version;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The refusal for a jar built against {@code builtFor} running on {@code running}, or null when
     * they share a minor version or either is unknown.
     */
    @VisibleForTesting
    @Nullable
    static String refusal(@Nullable String running, @Nullable String builtFor) {
        String runningMinor = minorOf(running);
        String builtForMinor = minorOf(builtFor);
        if (runningMinor == null || builtForMinor == null || runningMinor.equals(builtForMinor)) {
            return null;
        }
        String falconVersion = NativeLibrary.jarVersion();
        return "[FALCON] this Falcon jar"
                + (falconVersion == null ? "" : " (" + falconVersion + ")")
                + " is built for Flink "
                + builtForMinor
                + " and does not run on Flink "
                + running
                + "; "
                + (isSupported(runningMinor)
                        ? "install falcon-flink-"
                                + runningMinor
                                + "-"
                                + (falconVersion == null ? "<version>" : falconVersion)
                                + ".jar instead"
                        : "Falcon supports Flink "
                                + String.join(", ", SUPPORTED_MINORS)
                                + "; use state.backend: rocksdb on this Flink");
    }

    private static boolean isSupported(String minor) {
        for (String supported : SUPPORTED_MINORS) {
            if (supported.equals(minor)) {
                return true;
            }
        }
        return false;
    }

    /** "1.16" of "1.16.3" or "1.16-SNAPSHOT"; null when there is no major.minor prefix. */
    @VisibleForTesting
    @Nullable
    static String minorOf(@Nullable String version) {
        if (version == null) {
            return null;
        }
        int firstDot = version.indexOf('.');
        if (firstDot <= 0) {
            return null;
        }
        int end = firstDot + 1;
        while (end < version.length() && Character.isDigit(version.charAt(end))) {
            end++;
        }
        if (end == firstDot + 1) {
            return null;
        }
        for (int i = 0; i < firstDot; i++) {
            if (!Character.isDigit(version.charAt(i))) {
                return null;
            }
        }
        return version.substring(0, end);
    }
}
