/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.cache.CacheSettings;
import io.falconstate.flink.cache.NativeHotStateCache;
import io.falconstate.flink.nativeaccess.NativeLoadResult;

import org.apache.flink.configuration.MemorySize;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The {@code [FALCON]} lines operators read, in the exact formats {@code docs/architecture.md}
 * defines (tests compare them verbatim). Formatting is separated from logging so that exception
 * messages and tests use the same text. Lines that appear once per TaskManager JVM are guarded
 * here. Thread-safe.
 */
public final class FalconLog {

    /** The logger every {@code [FALCON]} line goes to. */
    public static final Logger LOG = LoggerFactory.getLogger("io.falconstate.flink.Falcon");

    private static final AtomicBoolean ACTIVATION_LOGGED = new AtomicBoolean();
    private static final AtomicBoolean NATIVE_WARNING_LOGGED = new AtomicBoolean();

    private FalconLog() {}

    /**
     * {@code [FALCON] Falcon <version> enabled (native <path>): cache <on|off> (<policy>),
     * value-state hash memtable <on|off>, map-state range filter <on|off>}.
     */
    public static String activationLine(
            String version,
            String nativePath,
            boolean cacheOn,
            String cachePolicy,
            boolean hashMemtableOn,
            boolean rangeFilterOn) {
        return "[FALCON] Falcon "
                + version
                + " enabled (native "
                + nativePath
                + "): cache "
                + onOff(cacheOn)
                + " ("
                + cachePolicy
                + "), value-state hash memtable "
                + onOff(hashMemtableOn)
                + ", map-state range filter "
                + onOff(rangeFilterOn);
    }

    /**
     * {@code [FALCON] WARN native library not loaded (tried: <each place and why>); running as the
     * stock RocksDB backend}.
     */
    public static String nativeNotLoadedLine(NativeLoadResult result) {
        return "[FALCON] WARN native library not loaded (tried: "
                + result.describeAttempts()
                + "); running as the stock RocksDB backend";
    }

    /** Logs the activation line at INFO, the first time per JVM only (built only then). */
    static void logActivationOnce(Supplier<String> line) {
        if (ACTIVATION_LOGGED.compareAndSet(false, true)) {
            LOG.info(line.get());
        }
    }

    /** Logs the native-library warning at WARN, the first time per JVM only. */
    static void logNativeNotLoadedOnce(String line) {
        if (NATIVE_WARNING_LOGGED.compareAndSet(false, true)) {
            LOG.warn(line);
        }
    }

    /**
     * {@code [FALCON] <<state>, VALUE> falcon cache enabled, <N> states (<bytes>)}: what one
     * subtask's cache can hold, shared by all its cached states. {@code N} is the entry cap when
     * one is set, else the bytes divided by the charge of a typical entry (24-byte key, 64-byte
     * value).
     */
    public static String cachedStateLine(String stateName, CacheSettings settings) {
        long entries = settings.entriesPerSubtask();
        long estimate = settings.bytesPerSubtask() / NativeHotStateCache.chargeFor(24, 64);
        long states = entries > 0 ? Math.min(entries, estimate) : estimate;
        return "[FALCON] <"
                + stateName
                + ", VALUE> falcon cache enabled, "
                + states
                + " states ("
                + new MemorySize(settings.bytesPerSubtask()).toString()
                + ")";
    }

    /** Logs {@link #cachedStateLine} at INFO (once per state and keyed backend). */
    static void logCachedState(String stateName, CacheSettings settings) {
        if (LOG.isInfoEnabled()) {
            LOG.info(cachedStateLine(stateName, settings));
        }
    }

    /** Lets a test see the once-per-JVM lines again. */
    static void resetOnceGuardsForTesting() {
        ACTIVATION_LOGGED.set(false);
        NATIVE_WARNING_LOGGED.set(false);
    }

    private static String onOff(boolean on) {
        return on ? "on" : "off";
    }
}
