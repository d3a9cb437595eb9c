/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Falcon's configuration keys, all under {@value #PREFIX}. Every option here is listed in {@code
 * docs/configuration.md} (a test checks it). Options of the wrapped RocksDB backend keep their
 * stock keys ({@code state.backend.rocksdb.*}, {@code state.backend.incremental}, ...).
 */
public final class FalconOptions {

    public static final String PREFIX = "state.backend.falcon.";

    public static final ConfigOption<Boolean> NATIVE_REQUIRED =
            ConfigOptions.key(PREFIX + "native.required")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "When true, creating a keyed state backend fails if libfalcon_jni.so "
                                    + "cannot be loaded (the exception carries the same text as the "
                                    + "[FALCON] WARN line). When false, the job logs that WARN line "
                                    + "once and runs exactly as on the stock RocksDB backend.");

    public static final ConfigOption<Boolean> CACHE_ENABLED =
            ConfigOptions.key(PREFIX + "cache.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Enables the write-back hot-state cache in native memory for "
                                    + "ValueState (not for queryable states). Reads of cached keys "
                                    + "skip RocksDB; updates stay in the cache until they are "
                                    + "evicted or a snapshot flushes them.");

    public static final ConfigOption<String> CACHE_POLICY =
            ConfigOptions.key(PREFIX + "cache.policy")
                    .stringType()
                    .defaultValue("w-tinylfu")
                    .withDescription(
                            "Eviction policy of the hot-state cache: 'w-tinylfu' (frequency-aware "
                                    + "and scan-resistant; the default) or 'lru' (the baseline).");

    public static final ConfigOption<MemorySize> CACHE_SIZE_PER_SUBTASK =
            ConfigOptions.key(PREFIX + "cache.size-per-subtask")
                    .memoryType()
                    .defaultValue(MemorySize.parse("32mb"))
                    .withDescription(
                            "Bytes each keyed subtask's cache may hold (key + value + a fixed "
                                    + "per-entry overhead). This fixed size is taken in addition "
                                    + "to Flink's managed memory until the managed-memory budget "
                                    + "replaces it; account for it in "
                                    + "taskmanager.memory.task.off-heap.size. 0 turns the cache off.");

    public static final ConfigOption<Long> CACHE_ENTRIES_PER_SUBTASK =
            ConfigOptions.key(PREFIX + "cache.entries-per-subtask")
                    .longType()
                    .defaultValue(0L)
                    .withDescription(
                            "Optional cap on the number of entries each keyed subtask's cache "
                                    + "holds, on top of the byte bound. 0 means no cap.");

    public static final ConfigOption<Double> CACHE_BYPASS_HIT_RATIO =
            ConfigOptions.key(PREFIX + "cache.bypass-hit-ratio")
                    .doubleType()
                    .defaultValue(0.0)
                    .withDescription(
                            "Adaptive bypass: a state whose hit ratio stays below this value for "
                                    + "two windows of 20000 reads goes straight to RocksDB and is "
                                    + "probed again later. 0 turns bypass off; allowed 0 to <1.");

    // -- column-family tuning (io.falconstate.flink.tuning) ----------------------------------

    public static final ConfigOption<Boolean> TUNING_VALUE_STATE_HASH_MEMTABLE =
            ConfigOptions.key(PREFIX + "tuning.value-state.hash-memtable")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Gives the column family of a ValueState whose keys all have one fixed "
                                    + "length (fixed-length key and namespace serializers, or SQL "
                                    + "row keys of fixed-width fields) a HashLinkList memtable with "
                                    + "a fixed-length prefix extractor over the whole key. When on, "
                                    + "allow_concurrent_memtable_write is switched off at DB open "
                                    + "and the memtable of such a column family is flushed before "
                                    + "any whole-column-family scan. Off until benchmarks show a "
                                    + "gain (docs/benchmarks.md).");

    public static final ConfigOption<Boolean> TUNING_MAP_STATE_RANGE_FILTER =
            ConfigOptions.key(PREFIX + "tuning.map-state.range-filter")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Gives the column family of a MapState with fixed-length key and "
                                    + "namespace a fixed-length prefix extractor of exactly key "
                                    + "group + key + namespace, a memtable prefix bloom and a bloom "
                                    + "filter (prefixes and whole keys) in the block-based table "
                                    + "config Flink built, so absent map keys and empty maps are "
                                    + "answered without reading data blocks. Off until benchmarks "
                                    + "show a gain (docs/benchmarks.md).");

    private FalconOptions() {}

    /** Every option Falcon defines, for documentation checks. */
    public static List<ConfigOption<?>> all() {
        return Collections.unmodifiableList(
                Arrays.asList(
                        NATIVE_REQUIRED,
                        CACHE_ENABLED,
                        CACHE_POLICY,
                        CACHE_SIZE_PER_SUBTASK,
                        CACHE_ENTRIES_PER_SUBTASK,
                        CACHE_BYPASS_HIT_RATIO,
                        TUNING_VALUE_STATE_HASH_MEMTABLE,
                        TUNING_MAP_STATE_RANGE_FILTER));
    }
}
