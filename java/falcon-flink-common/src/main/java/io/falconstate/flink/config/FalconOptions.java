/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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
                                    + "cannot be loaded; the exception names every place tried "
                                    + "and why, as the [FALCON] WARN line does. When false, the "
                                    + "job logs that WARN line once and runs exactly as on the "
                                    + "stock RocksDB backend.");

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

    public static final ConfigOption<Double> CACHE_MANAGED_MEMORY_SHARE =
            ConfigOptions.key(PREFIX + "cache.managed-memory-share")
                    .doubleType()
                    .defaultValue(0.1)
                    .withDescription(
                            "Share a of the state-backend managed memory f of each slot that the "
                                    + "hot-state cache reserves (a*f); RocksDB's block cache and "
                                    + "write buffers get the rest, (1-a)*f, so the TaskManager "
                                    + "stays within its Flink memory model. The slot's cache "
                                    + "budget is divided among its keyed subtasks by their "
                                    + "managed-memory fractions; what a subtask does not use "
                                    + "is lent to those that evict. Allowed: 0 (the cache takes no "
                                    + "managed memory; then only cache.size-per-subtask sizes it) "
                                    + "up to 0.9.");

    public static final ConfigOption<Long> CACHE_ENTRIES_PER_TASKMANAGER =
            ConfigOptions.key(PREFIX + "cache.entries-per-taskmanager")
                    .longType()
                    .defaultValue(0L)
                    .withDescription(
                            "Optional cap on the number of cached states (entries) per "
                                    + "TaskManager, on top of the byte budget: each slot gets "
                                    + "floor(cap / taskmanager.numberOfTaskSlots) (at least 1), "
                                    + "shared by its keyed subtasks like the bytes. 0 means no cap.");

    public static final ConfigOption<MemorySize> CACHE_SIZE_PER_SUBTASK =
            ConfigOptions.key(PREFIX + "cache.size-per-subtask")
                    .memoryType()
                    .defaultValue(MemorySize.ZERO)
                    .withDescription(
                            "Explicit override: when above 0, every keyed subtask's cache holds "
                                    + "this many bytes (key + value + a fixed per-entry overhead) "
                                    + "taken outside managed memory (account for it in "
                                    + "taskmanager.memory.task.off-heap.size), and "
                                    + "cache.managed-memory-share is not used. 0 (the default) "
                                    + "sizes the cache from managed memory. Allowed: 0 to 1 tb.");

    public static final ConfigOption<Long> CACHE_ENTRIES_PER_SUBTASK =
            ConfigOptions.key(PREFIX + "cache.entries-per-subtask")
                    .longType()
                    .defaultValue(0L)
                    .withDescription(
                            "With cache.size-per-subtask only: a cap on the number of entries "
                                    + "each keyed subtask's cache holds, on top of the byte bound. "
                                    + "0 means no cap.");

    public static final ConfigOption<MemorySize> CACHE_MAX_DIRTY_BYTES =
            ConfigOptions.key(PREFIX + "cache.max-dirty-bytes")
                    .memoryType()
                    .defaultValue(MemorySize.parse("16mb"))
                    .withDescription(
                            "Cap on the dirty (not yet written back) bytes of each keyed "
                                    + "subtask's cache. When a write leaves more, the coldest "
                                    + "dirty entries are written back to RocksDB until half the "
                                    + "cap stays dirty, so the synchronous phase of a checkpoint "
                                    + "flushes at most this much. With "
                                    + "cache.write-back-pause-target, the cap until the first "
                                    + "measured write-back and the ceiling after it. 0 means no "
                                    + "fixed cap. Allowed: 0 to 1 tb.");

    public static final ConfigOption<Duration> CACHE_WRITE_BACK_PAUSE_TARGET =
            ConfigOptions.key(PREFIX + "cache.write-back-pause-target")
                    .durationType()
                    .defaultValue(Duration.ofMillis(50))
                    .withDescription(
                            "How long a checkpoint barrier's write-back should take at most, "
                                    + "also when nobody foresaw the barrier: each keyed "
                                    + "subtask measures how fast it writes back and caps its "
                                    + "dirty bytes at that rate times this pause (at least 1 mb, "
                                    + "at most cache.max-dirty-bytes when that is not 0). 0 "
                                    + "turns it off: the cap is cache.max-dirty-bytes. Allowed: "
                                    + "0 to 10 min.");

    public static final ConfigOption<Double> CACHE_PRE_BARRIER_LEAD =
            ConfigOptions.key(PREFIX + "cache.pre-barrier-lead")
                    .doubleType()
                    .defaultValue(0.2)
                    .withDescription(
                            "Write-back ahead of checkpoint barriers: from this fraction of the "
                                    + "checkpoint interval before the next expected barrier "
                                    + "(execution.checkpointing.interval, then the interval "
                                    + "between the last two barriers), "
                                    + "the cache writes its dirty entries back in small slices "
                                    + "on the task thread and starts the flush of the cached "
                                    + "states' memtables without waiting, so the synchronous "
                                    + "phase of the checkpoint finds little left to do. The "
                                    + "barrier still writes back whatever is dirty. Intervals "
                                    + "under one second are not paced. 0 turns it off. "
                                    + "Allowed: 0 to 0.5.");

    public static final ConfigOption<Double> CACHE_BYPASS_HIT_RATIO =
            ConfigOptions.key(PREFIX + "cache.bypass-hit-ratio")
                    .doubleType()
                    .defaultValue(0.25)
                    .withDescription(
                            "Self-switching cache: a state whose reads hit the cache less than "
                                    + "this share (a MapState: "
                                    + "cache.map-state.bypass-hit-ratio) for two windows in a row (or more than three "
                                    + "quarters of whose operations the cache cannot hold: maps over the cap, "
                                    + "values over the quota) goes straight to RocksDB, and is "
                                    + "cached again for a trial later. 0 keeps every state "
                                    + "cached; allowed 0 to <1.");

    public static final ConfigOption<Integer> CACHE_SWITCH_WINDOW =
            ConfigOptions.key(PREFIX + "cache.switch.window")
                    .intType()
                    .defaultValue(20_000)
                    .withDescription(
                            "Self-switching cache: operations of one state per decision "
                                    + "window. Allowed 16 or more.");

    public static final ConfigOption<Long> CACHE_SWITCH_RETRY_OPERATIONS =
            ConfigOptions.key(PREFIX + "cache.switch.retry-after")
                    .longType()
                    .defaultValue(200_000L)
                    .withDescription(
                            "Self-switching cache: operations a state stays on RocksDB before "
                                    + "its cache is tried again; doubled after each failed "
                                    + "trial, up to 64 times. Allowed 1 or more.");

    public static final ConfigOption<Boolean> CACHE_HUGE_PAGES =
            ConfigOptions.key(PREFIX + "cache.huge-pages")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Lets the hot-state cache ask the kernel for transparent huge pages "
                                    + "(madvise) for its entry blocks when a subtask's cache holds "
                                    + "64 mb or more, and for its index once that is 2 mb or more: "
                                    + "a large cache then misses the TLB far less often "
                                    + "(docs/benchmarks.md). It takes effect only where "
                                    + "/sys/kernel/mm/transparent_hugepage/enabled is 'madvise' "
                                    + "or 'always'. Set false on hosts where huge-page compaction "
                                    + "stalls are a concern; the cache's entry blocks then stay on "
                                    + "4 kb pages, even where that setting is 'always'.");

    public static final ConfigOption<Boolean> CACHE_LIST_STATE_ENABLED =
            ConfigOptions.key(PREFIX + "cache.list-state.enabled")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "With the hot-state cache on, also caches ListState (not queryable "
                                    + "ones), a whole list at a time: an add to a cached list "
                                    + "appends to it in the cache, a read of a cached list skips "
                                    + "RocksDB, and the list is written back as one value when it "
                                    + "is evicted or a snapshot flushes it. An add to a list the "
                                    + "cache does not hold is merged into RocksDB as on the stock "
                                    + "backend, without reading the list. Off by default: it pays "
                                    + "where lists are read while they are cached (windows that "
                                    + "fire while their lists are hot), and costs where lists "
                                    + "live long without being read: each write-back rewrites a "
                                    + "whole list where stock merges each element once "
                                    + "(docs/benchmarks.md, ListState).");

    public static final ConfigOption<MemorySize> CACHE_LIST_STATE_MAX_BYTES_PER_LIST =
            ConfigOptions.key(PREFIX + "cache.list-state.max-bytes-per-list")
                    .memoryType()
                    .defaultValue(MemorySize.parse("256kb"))
                    .withDescription(
                            "The longest list the cache holds: its serialized elements plus one "
                                    + "byte between two. A list that grows past it leaves the "
                                    + "cache (written back first) and its adds are merged into "
                                    + "RocksDB as on the stock backend, so a long list that keeps "
                                    + "growing is not rewritten whole at every write-back. "
                                    + "Allowed: 1 kb to 8 mb.");

    public static final ConfigOption<Boolean> CACHE_MAP_STATE_ENABLED =
            ConfigOptions.key(PREFIX + "cache.map-state.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "With the hot-state cache on, also caches MapState (not queryable "
                                    + "ones), a whole user map at a time: reads and iteration of a "
                                    + "cached map skip RocksDB, writes stay in the cache until the "
                                    + "map is evicted or a snapshot flushes them. Maps over "
                                    + "cache.map-state.max-bytes-per-map go to RocksDB as on the "
                                    + "stock backend.");

    public static final ConfigOption<MemorySize> CACHE_MAP_STATE_MAX_BYTES_PER_MAP =
            ConfigOptions.key(PREFIX + "cache.map-state.max-bytes-per-map")
                    .memoryType()
                    .defaultValue(MemorySize.parse("256kb"))
                    .withDescription(
                            "The largest user map the cache holds whole: its serialized user "
                                    + "keys and values plus 12 bytes per entry. Of a larger map "
                                    + "the cache holds the entries read and written lately, up "
                                    + "to this size; iterating it reads RocksDB. Large enough "
                                    + "for a hot join key's rows while it is hot: each of them "
                                    + "read from RocksDB is a lookup of a key that is not there, "
                                    + "which searches every level of a large state. Allowed: 1 "
                                    + "kb to 8 mb.");

    public static final ConfigOption<Double> CACHE_MAP_STATE_BYPASS_HIT_RATIO =
            ConfigOptions.key(PREFIX + "cache.map-state.bypass-hit-ratio")
                    .doubleType()
                    .defaultValue(0.5)
                    .withDescription(
                            "Self-switching cache: the hit ratio below which a MapState goes "
                                    + "straight to RocksDB (cache.bypass-hit-ratio is the "
                                    + "ValueState one). Higher than the ValueState one because a "
                                    + "map miss loads the whole map with a RocksDB seek and scan, "
                                    + "about two point reads' worth; a miss that loads n "
                                    + "entries counts as 1 + n/16 misses. 0 keeps every MapState "
                                    + "cached, as does cache.bypass-hit-ratio 0; allowed 0 to "
                                    + "<1.");

    public static final ConfigOption<Integer> CACHE_WRITTEN_KEY_FILTER_MAX_KEYS =
            ConfigOptions.key(PREFIX + "cache.written-key-filter.max-keys")
                    .intType()
                    .defaultValue(1 << 23)
                    .withDescription(
                            "Each cached ValueState keeps a Bloom filter of the keys written into "
                                    + "its column family (12 bits per key of capacity, on the "
                                    + "task heap: at most 12 MiB at the default), so that a "
                                    + "cache miss on a key never written, such as the first "
                                    + "read of a new window slice or a deduplication's read of "
                                    + "a new key, is answered without a RocksDB read. A "
                                    + "ValueState holding more than half of this many keys is "
                                    + "not filtered (cache.written-key-filter.max-maps is the "
                                    + "MapState limit). 0 turns the ValueState filters off; "
                                    + "allowed 0 or 16384 to 268435456.");

    public static final ConfigOption<Integer> CACHE_WRITTEN_KEY_FILTER_MAX_MAPS =
            ConfigOptions.key(PREFIX + "cache.written-key-filter.max-maps")
                    .intType()
                    .defaultValue(1 << 20)
                    .withDescription(
                            "Each cached MapState keeps a Bloom filter of the maps written into "
                                    + "its column family (12 bits per map of capacity, on the "
                                    + "task heap: at most 1.5 MiB at the default), so that a "
                                    + "join's probe for a key the other side never had is "
                                    + "answered without a RocksDB seek. A MapState holding "
                                    + "more than half of this many maps is not filtered: a "
                                    + "join's probes of that many maps mostly find them. "
                                    + "0 turns the MapState filters off; allowed 0 or 16384 "
                                    + "to 268435456.");

    // -- column-family tuning (io.falconstate.flink.tuning) ----------------------------------

    public static final ConfigOption<String> TUNING_VALUE_STATE_HASH_MEMTABLE =
            ConfigOptions.key(PREFIX + "tuning.value-state.hash-memtable")
                    .stringType()
                    .defaultValue("auto")
                    .withDescription(
                            "Gives the column family of a ValueState whose keys all have one fixed "
                                    + "length (fixed-length key and namespace serializers, or SQL "
                                    + "row keys of fixed-width fields) a HashLinkList memtable with "
                                    + "a fixed-length prefix extractor over the whole key. 'auto' "
                                    + "(the default): on while the hot-state cache is enabled, "
                                    + "whose misses and write-backs are then most of what RocksDB "
                                    + "serves (docs/benchmarks.md); 'true' or 'false' force it. "
                                    + "When on, allow_concurrent_memtable_write is switched off at "
                                    + "DB open and the memtable of such a column family is flushed "
                                    + "before any whole-column-family scan.");

    /**
     * Recognized so that a configuration asking for in-place updates fails with a reason instead of
     * being ignored: {@code true} is refused (see {@link #rejectInplaceUpdates}).
     */
    public static final ConfigOption<Boolean> TUNING_VALUE_STATE_INPLACE_UPDATE =
            ConfigOptions.key(PREFIX + "tuning.value-state.inplace-update")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Not supported; only 'false' is accepted. RocksDB's "
                                    + "inplace_update_support on any column family makes "
                                    + "DB::GetSnapshot return no snapshot for the whole database, "
                                    + "and Flink needs one to migrate state values on restore "
                                    + "(state schema evolution) and to keep a canonical savepoint "
                                    + "point-in-time. 'true' fails at configuration time "
                                    + "(docs/decisions/0006-no-inplace-memtable-updates.md).");

    public static final ConfigOption<Boolean> TUNING_MAP_STATE_RANGE_FILTER =
            ConfigOptions.key(PREFIX + "tuning.map-state.range-filter")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Gives the column family of a MapState with fixed-length key and "
                                    + "namespace a fixed-length prefix extractor of exactly key "
                                    + "group + key + namespace, a memtable prefix bloom and a bloom "
                                    + "filter (prefixes and whole keys, partitioned, with a "
                                    + "two-level index, none in the last level) in the "
                                    + "block-based table config Flink built, so absent map keys "
                                    + "and empty maps are answered without reading every level. "
                                    + "False keeps Flink's column family options for MapStates.");

    public static final ConfigOption<MemorySize> TUNING_BLOCK_CACHE_MIN_SHARD_SIZE =
            ConfigOptions.key(PREFIX + "tuning.block-cache.min-shard-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("16mb"))
                    .withDescription(
                            "The smallest shard of the RocksDB block cache a slot shares (from "
                                    + "managed memory or state.backend.rocksdb.memory."
                                    + "fixed-per-slot): the cache gets the most shards, a power "
                                    + "of two up to RocksDB's own 64, that are each at least this "
                                    + "large. RocksDB's own choice, 64 shards from 32 MB up, makes "
                                    + "shards of a few MB, and each shard also holds the "
                                    + "write-buffer manager's pinned reservations for the "
                                    + "memtables: a shard pinned past its capacity frees every "
                                    + "block at release, so an SST index block that lands there "
                                    + "is read and decompressed again on every lookup "
                                    + "(docs/decisions/0033-block-cache-shards-of-16-mb.md). "
                                    + "0 keeps RocksDB's sharding, as stock. A cache shared by the "
                                    + "whole TaskManager (state.backend.rocksdb.memory."
                                    + "fixed-per-tm) keeps RocksDB's sharding.");

    public static final ConfigOption<Boolean> TUNING_LZ4_COMPRESSION =
            ConfigOptions.key(PREFIX + "tuning.lz4-compression")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Every column family whose compression is RocksDB's default (Snappy "
                                    + "on every level) is compressed with LZ4 instead. Flink "
                                    + "flushes every column family at each checkpoint, so a job "
                                    + "that keeps adding state compacts the same data into the "
                                    + "lower levels again and again, and compaction's compressing "
                                    + "and decompressing is a large share of its CPU; LZ4 does "
                                    + "both faster at a similar size. Every SST block records its "
                                    + "compression, so the stock backend restores the files as "
                                    + "they are. A compression the user chose (an options "
                                    + "factory, or state.backend.rocksdb.compression.per.level "
                                    + "from Flink 1.19) is kept, as is Snappy when the RocksDB "
                                    + "library has no LZ4 "
                                    + "(docs/decisions/0034-lz4-compression.md). False keeps "
                                    + "RocksDB's Snappy, as stock.");

    public static final ConfigOption<Integer> TIMERS_DEDUP_CAPACITY =
            ConfigOptions.key(PREFIX + "timers.dedup-capacity")
                    .intType()
                    .defaultValue(16384)
                    .withDescription(
                            "Per timer queue in RocksDB (one per operator and time domain), the "
                                    + "most timers Falcon remembers as already in RocksDB, so "
                                    + "that registering one of them again (window operators do "
                                    + "it on every record) skips the RocksDB write. Held on the "
                                    + "JVM heap: a table slot per entry plus a copy of the "
                                    + "timer (its key and namespace). When full, the set "
                                    + "starts over. 0 turns this off; at most 16777216. "
                                    + "Heap timers (state.backend.rocksdb.timer-service.factory: "
                                    + "HEAP) are left as they are.");

    public static final ConfigOption<Integer> TIMERS_HELD_CAPACITY =
            ConfigOptions.key(PREFIX + "timers.held-capacity")
                    .intType()
                    .defaultValue(1_000_000)
                    .withDescription(
                            "Per timer queue in RocksDB (one per operator and time domain), the "
                                    + "most timers Falcon holds on the JVM heap, in RocksDB's "
                                    + "order, writing to RocksDB only before each snapshot the "
                                    + "timers added and removed since the last one: a timer "
                                    + "registered and fired between two checkpoints never "
                                    + "reaches RocksDB. About 160 bytes of heap per timer; all "
                                    + "queues of a TaskManager together hold at most a tenth of "
                                    + "the JVM heap. A queue that would hold more writes "
                                    + "everything to RocksDB, logs a [FALCON] line and works as "
                                    + "stock from then on. 0 turns this off. Heap timers "
                                    + "(state.backend.rocksdb.timer-service.factory: HEAP) are "
                                    + "left as they are.");

    private FalconOptions() {}

    /**
     * Reads a boolean option; a value that is not a boolean fails with the key, the value and what
     * is allowed, as every other Falcon option does.
     */
    public static boolean readBoolean(ReadableConfig config, ConfigOption<Boolean> option) {
        try {
            return config.get(option);
        } catch (IllegalArgumentException e) {
            // Flink's message names the value it could not parse.
            throw new IllegalConfigurationException(
                    String.format("%s: %s; allowed: true, false", option.key(), e.getMessage()), e);
        }
    }

    /**
     * Fails when {@link #TUNING_VALUE_STATE_INPLACE_UPDATE} is {@code true}: in-place memtable
     * updates and RocksDB snapshots cannot coexist in FRocksDB 6.20, and Flink's state migration
     * and canonical savepoints need snapshots.
     */
    public static void rejectInplaceUpdates(ReadableConfig config) {
        if (readBoolean(config, TUNING_VALUE_STATE_INPLACE_UPDATE)) {
            throw new IllegalConfigurationException(
                    TUNING_VALUE_STATE_INPLACE_UPDATE.key()
                            + ": 'true' is not supported. With inplace_update_support on any "
                            + "column family RocksDB gives no snapshot of the database, which "
                            + "Flink needs to migrate state values on restore (a changed state "
                            + "serializer) and to take point-in-time canonical savepoints. Remove "
                            + "the option or set it to false.");
        }
    }

    /**
     * The keys under {@value #PREFIX} in {@code config} that are no Falcon option (a typo such as
     * {@code cache.enable}), sorted. Only a {@link Configuration} can list its keys; for any other
     * {@link ReadableConfig} the list is empty.
     */
    public static List<String> unknownKeys(ReadableConfig config) {
        if (!(config instanceof Configuration)) {
            return Collections.emptyList();
        }
        Set<String> known = new HashSet<>();
        for (ConfigOption<?> option : all()) {
            known.add(option.key());
        }
        List<String> unknown = new ArrayList<>();
        for (String key : ((Configuration) config).keySet()) {
            if (key.startsWith(PREFIX) && !known.contains(key)) {
                unknown.add(key);
            }
        }
        Collections.sort(unknown);
        return unknown;
    }

    /** The Falcon option key with the smallest edit distance to {@code key}. */
    public static String closestKey(String key) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (ConfigOption<?> option : all()) {
            int distance = editDistance(key, option.key());
            if (distance < bestDistance) {
                best = option.key();
                bestDistance = distance;
            }
        }
        return best;
    }

    /** Levenshtein distance: insertions, deletions and substitutions of single characters. */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /** Every option Falcon defines, for documentation checks. */
    public static List<ConfigOption<?>> all() {
        return Collections.unmodifiableList(
                Arrays.asList(
                        NATIVE_REQUIRED,
                        CACHE_ENABLED,
                        CACHE_POLICY,
                        CACHE_MANAGED_MEMORY_SHARE,
                        CACHE_ENTRIES_PER_TASKMANAGER,
                        CACHE_SIZE_PER_SUBTASK,
                        CACHE_ENTRIES_PER_SUBTASK,
                        CACHE_MAX_DIRTY_BYTES,
                        CACHE_PRE_BARRIER_LEAD,
                        CACHE_WRITE_BACK_PAUSE_TARGET,
                        CACHE_BYPASS_HIT_RATIO,
                        CACHE_SWITCH_WINDOW,
                        CACHE_SWITCH_RETRY_OPERATIONS,
                        CACHE_HUGE_PAGES,
                        CACHE_LIST_STATE_ENABLED,
                        CACHE_LIST_STATE_MAX_BYTES_PER_LIST,
                        CACHE_MAP_STATE_ENABLED,
                        CACHE_MAP_STATE_MAX_BYTES_PER_MAP,
                        CACHE_MAP_STATE_BYPASS_HIT_RATIO,
                        CACHE_WRITTEN_KEY_FILTER_MAX_KEYS,
                        CACHE_WRITTEN_KEY_FILTER_MAX_MAPS,
                        TUNING_VALUE_STATE_HASH_MEMTABLE,
                        TUNING_VALUE_STATE_INPLACE_UPDATE,
                        TUNING_MAP_STATE_RANGE_FILTER,
                        TUNING_BLOCK_CACHE_MIN_SHARD_SIZE,
                        TUNING_LZ4_COMPRESSION,
                        TIMERS_DEDUP_CAPACITY,
                        TIMERS_HELD_CAPACITY));
    }
}
