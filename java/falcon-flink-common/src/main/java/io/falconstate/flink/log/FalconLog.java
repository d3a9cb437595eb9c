/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.log;

import org.apache.flink.configuration.MemorySize;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
    private static final AtomicBoolean TASKMANAGER_CACHE_LOGGED = new AtomicBoolean();
    private static final Set<String> UNKNOWN_OPTIONS_LOGGED = ConcurrentHashMap.newKeySet();

    private FalconLog() {}

    /**
     * {@code [FALCON] Falcon <version> enabled (native <path>): cache <on|off> (<policy>),
     * value-state hash memtable <on|off>, map-state range filter <on|off>, lz4 compression
     * <on|off>}.
     */
    public static String activationLine(
            String version,
            String nativePath,
            boolean cacheOn,
            String cachePolicy,
            boolean hashMemtableOn,
            boolean rangeFilterOn,
            boolean lz4CompressionOn) {
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
                + onOff(rangeFilterOn)
                + ", lz4 compression "
                + onOff(lz4CompressionOn);
    }

    /**
     * {@code [FALCON] WARN RocksDB's library has no LZ4 (<why>); column families keep Snappy}:
     * logged once per JVM when {@code tuning.lz4-compression} is on and the library lacks it.
     */
    public static String lz4MissingLine(String why) {
        return "[FALCON] WARN RocksDB's library has no LZ4 ("
                + why
                + "); column families keep Snappy";
    }

    /**
     * {@code [FALCON] WARN native library not loaded (tried: <each place and why>); running as the
     * stock RocksDB backend}.
     */
    public static String nativeNotLoadedLine(String attempts) {
        return "[FALCON] WARN native library not loaded (tried: "
                + attempts
                + "); running as the stock RocksDB backend";
    }

    /**
     * The message of the exception that refuses a keyed backend when {@link
     * FalconOptions#NATIVE_REQUIRED} is set and the native library is not loaded: {@code [FALCON]
     * native library not loaded (tried: <each place and why>); state.backend.falcon.native.required
     * is true, so no keyed state backend is created}.
     */
    public static String nativeRequiredFailure(String attempts, String requiredOptionKey) {
        return "[FALCON] native library not loaded (tried: "
                + attempts
                + "); "
                + requiredOptionKey
                + " is true, so no keyed state backend is created";
    }

    /**
     * {@code [FALCON] WARN unknown option <key>; did you mean <closest known key>?}: a key under
     * {@code state.backend.falcon.} that no option has, which Flink would otherwise ignore.
     */
    public static String unknownOptionLine(String key, String closestKey) {
        return "[FALCON] WARN unknown option " + key + "; did you mean " + closestKey + "?";
    }

    /** Logs {@link #unknownOptionLine} at WARN, once per key per JVM. */
    public static void logUnknownOptionOnce(String key, String closestKey) {
        if (UNKNOWN_OPTIONS_LOGGED.add(key)) {
            LOG.warn(unknownOptionLine(key, closestKey));
        }
    }

    /**
     * {@code [FALCON] <state> is valueState, use HashLinkList as memTable structure (prefix <n>
     * bytes)}.
     */
    public static String hashMemtableLine(String state, int prefixBytes) {
        return "[FALCON] "
                + state
                + " is valueState, use HashLinkList as memTable structure (prefix "
                + prefixBytes
                + " bytes)";
    }

    /** {@code [FALCON] <state> is map, use range filter (prefix <n> bytes)}. */
    public static String rangeFilterLine(String state, int prefixBytes) {
        return "[FALCON] " + state + " is map, use range filter (prefix " + prefixBytes + " bytes)";
    }

    /**
     * {@code [FALCON] <state> range filter without memtable bloom: <reason>}: a MapState column
     * family keeps its prefix extractor and SST filter, but its memtables get no bloom.
     */
    public static String noMemtableBloomLine(String state, String reason) {
        return "[FALCON] " + state + " range filter without memtable bloom: " + reason;
    }

    /**
     * {@code [FALCON] slot's RocksDB block cache: <bytes> in <N> shards (RocksDB's default: <M>)}:
     * logged when a slot's shared block cache is created.
     */
    public static String blockCacheLine(long capacity, int shards, int rocksDbDefaultShards) {
        return "[FALCON] slot's RocksDB block cache: "
                + bytes(capacity)
                + " in "
                + shards
                + (shards == 1 ? " shard" : " shards")
                + " (RocksDB's default: "
                + rocksDbDefaultShards
                + ")";
    }

    /** {@code [FALCON] <state> left untuned: <reason>}. */
    public static String untunedLine(String state, String reason) {
        return "[FALCON] " + state + " left untuned: " + reason;
    }

    /** Logs the activation line at INFO, the first time per JVM only (built only then). */
    public static void logActivationOnce(Supplier<String> line) {
        if (ACTIVATION_LOGGED.compareAndSet(false, true)) {
            LOG.info(line.get());
        }
    }

    /** Logs the native-library warning at WARN, the first time per JVM only. */
    public static void logNativeNotLoadedOnce(String line) {
        if (NATIVE_WARNING_LOGGED.compareAndSet(false, true)) {
            LOG.warn(line);
        }
    }

    /**
     * {@code [FALCON] configuring falcon cache: TaskManager has <S> slots, each slot can cache
     * <bytes> (<N> states)}; {@code (<N> states)} only when an entry cap is set ({@code slotEntries
     * > 0}).
     */
    public static String taskManagerCacheLine(int slots, long slotBytes, long slotEntries) {
        return "[FALCON] configuring falcon cache: TaskManager has "
                + slots
                + " slots, each slot can cache "
                + bytes(slotBytes)
                + statesSuffix(slotEntries);
    }

    /**
     * {@code [FALCON] subtask <task name> (<index+1>/<parallelism>)#<attempt>: slot has <M> keyed
     * subtasks, this subtask can cache <bytes> (<N> states)}; {@code (<N> states)} only when an
     * entry cap is set ({@code entries > 0}).
     */
    public static String subtaskCacheLine(
            String taskName,
            int index,
            int parallelism,
            int attempt,
            int keyedSubtasksInSlot,
            long quotaBytes,
            long quotaEntries) {
        return "[FALCON] subtask "
                + taskName
                + " ("
                + (index + 1)
                + "/"
                + parallelism
                + ")#"
                + attempt
                + ": slot has "
                + keyedSubtasksInSlot
                + " keyed subtasks, this subtask can cache "
                + bytes(quotaBytes)
                + statesSuffix(quotaEntries);
    }

    /**
     * {@code [FALCON] <<state>, VALUE> falcon cache enabled, <N> states (<bytes>)}: what the
     * subtask's cache can hold now, shared by all its cached states; {@code states} is the caller's
     * estimate of how many typical values fit.
     */
    public static String cachedStateLine(String stateName, long quotaBytes, long states) {
        return cachedLine(stateName, "VALUE", states, "states", quotaBytes);
    }

    /**
     * {@code [FALCON] <<state>, MAP> falcon cache enabled, <N> maps (<bytes>)}: what the subtask's
     * cache can hold now, shared by all its cached states; {@code maps} is the caller's estimate of
     * how many typical maps fit (a map is one entry).
     */
    public static String cachedMapStateLine(String stateName, long quotaBytes, long maps) {
        return cachedLine(stateName, "MAP", maps, "maps", quotaBytes);
    }

    /**
     * {@code [FALCON] <<state>, LIST> falcon cache enabled, <N> lists (<bytes>)}: as the MAP line;
     * a list is one entry.
     */
    public static String cachedListStateLine(String stateName, long quotaBytes, long lists) {
        return cachedLine(stateName, "LIST", lists, "lists", quotaBytes);
    }

    private static String cachedLine(
            String stateName, String kind, long count, String unit, long quotaBytes) {
        return "[FALCON] <"
                + stateName
                + ", "
                + kind
                + "> falcon cache enabled, "
                + count
                + " "
                + unit
                + " ("
                + bytes(quotaBytes)
                + ")";
    }

    /**
     * {@code [FALCON] <<state>, <VALUE|LIST|MAP>> cache off: <reason>; tried again after <N>
     * operations}: the state's operations go straight to RocksDB from here on ({@code
     * cache.CacheSwitch}); {@code reason} is {@code hit ratio <r> over <n> reads} or {@code <n> of
     * <w> operations were not cacheable (maps over the cap or values over the quota)}.
     */
    public static String cacheOffLine(String state, String reason, long operations) {
        return "[FALCON] <"
                + state
                + "> cache off: "
                + reason
                + "; tried again after "
                + operations
                + " operations";
    }

    /**
     * {@code [FALCON] <<state>, <VALUE|LIST|MAP>> cache on: hit ratio <r> over <n> reads}: a trial
     * showed the cache pays for the state again, which stays cached.
     */
    public static String cacheOnLine(String state, double hitRatio, long reads) {
        return String.format(
                java.util.Locale.ROOT,
                "[FALCON] <%s> cache on: hit ratio %.2f over %d reads",
                state,
                hitRatio,
                reads);
    }

    /** The line logged when a timer queue stops holding its timers on the heap. */
    public static String timersStepAsideLine(String state, int held, String limit) {
        return "[FALCON] <"
                + state
                + "> timers held: "
                + held
                + " over "
                + limit
                + "; written to RocksDB from now on, as stock";
    }

    /** Logs {@link #timersStepAsideLine} at INFO (once per timer queue). */
    public static void timersStepAside(String state, int held, String limit) {
        LOG.info(timersStepAsideLine(state, held, limit));
    }

    /** Logs {@link #cacheOffLine} at INFO (at most once per probe interval and state). */
    public static void cacheSwitchedOff(String state, String reason, long operations) {
        LOG.info(cacheOffLine(state, reason, operations));
    }

    /** Logs {@link #cacheOnLine} at INFO. */
    public static void cacheSwitchedOn(String state, double hitRatio, long reads) {
        LOG.info(cacheOnLine(state, hitRatio, reads));
    }

    /** Logs {@link #cachedMapStateLine} at INFO (once per state and keyed backend). */
    public static void logCachedMapState(String stateName, long quotaBytes, long maps) {
        if (LOG.isInfoEnabled()) {
            LOG.info(cachedMapStateLine(stateName, quotaBytes, maps));
        }
    }

    /** Logs {@link #cachedListStateLine} at INFO (once per state and keyed backend). */
    public static void logCachedListState(String stateName, long quotaBytes, long lists) {
        if (LOG.isInfoEnabled()) {
            LOG.info(cachedListStateLine(stateName, quotaBytes, lists));
        }
    }

    /** Logs {@link #taskManagerCacheLine} at INFO, the first time per JVM only. */
    public static void logTaskManagerCacheOnce(int slots, long slotBytes, long slotEntries) {
        if (TASKMANAGER_CACHE_LOGGED.compareAndSet(false, true)) {
            LOG.info(taskManagerCacheLine(slots, slotBytes, slotEntries));
        }
    }

    /** Logs {@link #subtaskCacheLine} at INFO (once per keyed backend). */
    public static void logSubtaskCache(
            String taskName,
            int index,
            int parallelism,
            int attempt,
            int keyedSubtasksInSlot,
            long quotaBytes,
            long quotaEntries) {
        LOG.info(
                subtaskCacheLine(
                        taskName,
                        index,
                        parallelism,
                        attempt,
                        keyedSubtasksInSlot,
                        quotaBytes,
                        quotaEntries));
    }

    /** Logs {@link #cachedStateLine} at INFO (once per state and keyed backend). */
    public static void logCachedState(String stateName, long quotaBytes, long states) {
        if (LOG.isInfoEnabled()) {
            LOG.info(cachedStateLine(stateName, quotaBytes, states));
        }
    }

    /** Bytes as the log lines print them (Flink's {@link MemorySize} text, e.g. {@code 32 mb}). */
    public static String bytes(long bytes) {
        return new MemorySize(bytes).toString();
    }

    private static String statesSuffix(long entries) {
        return entries > 0 ? " (" + entries + " states)" : "";
    }

    /** Lets a test see the once-per-JVM lines again. */
    public static void resetOnceGuardsForTesting() {
        ACTIVATION_LOGGED.set(false);
        NATIVE_WARNING_LOGGED.set(false);
        TASKMANAGER_CACHE_LOGGED.set(false);
        UNKNOWN_OPTIONS_LOGGED.clear();
    }

    private static String onOff(boolean on) {
        return on ? "on" : "off";
    }
}
