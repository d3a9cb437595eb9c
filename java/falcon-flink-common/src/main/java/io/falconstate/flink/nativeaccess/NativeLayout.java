/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

/**
 * Everything the jar and {@code libfalcon_jni.so} must agree on, defined once on the Java side:
 * record layouts, answer codes, statistics arrays, the tuning advisor's result array, state kinds,
 * reason and policy codes. The native side defines the same once too ({@code jni/native_layout.h})
 * and lists every constant by this class's field name ({@link FalconNative#layoutConstants()}); a
 * test compares the two field by field. Change one, change the other, and bump {@link
 * #LAYOUT_VERSION} in both: {@link NativeLibrary} refuses a library whose {@link
 * FalconNative#layoutVersion()} differs, and Falcon then runs as the stock backend.
 */
public final class NativeLayout {

    /** Compared with the library's own at load time. */
    public static final int LAYOUT_VERSION = 8;

    /** What any native call that threw a Java exception returns (the exception is pending). */
    public static final int ERROR_RETURN = -4;

    // --- a write-back record (native byte order): header, key, value ---

    public static final int RECORD_STATE_ID_OFFSET = 0;
    public static final int RECORD_KEY_LENGTH_OFFSET = 4;

    /** {@link #RECORD_DELETE} for a delete (no value bytes follow the key). */
    public static final int RECORD_VALUE_LENGTH_OFFSET = 8;

    /** A map record's leading key bytes that name its map; 0 for a ValueState's record. */
    public static final int RECORD_PREFIX_LENGTH_OFFSET = 12;

    public static final int RECORD_HEADER_BYTES = 16;
    public static final int RECORD_DELETE = -1;

    // --- get calls' answers other than a hit's length ---

    public static final int GET_MISS = -1;
    public static final int GET_ABSENT = -2;

    /** The key cannot be cached (over a limit): read RocksDB, do not fill. */
    public static final int GET_BYPASS = -3;

    /** A hit of {@code GET_NEED_BUFFER - result} bytes that does not fit. */
    public static final int GET_NEED_BUFFER = -16;

    // --- NativeMapCache: codes besides GET_*, the scan header, packed records, statistics ---

    /** The map is too large to cache: RocksDB answers. */
    public static final int MAP_OVERSIZED = -5;

    /** nativeScan: io[0, 4) = records, io[4] = more (0/1), the packed records from here. */
    public static final int SCAN_HEADER_BYTES = 8;

    /** A packed record: u16 user key length, u32 value length, user key, value. */
    public static final int PACKED_HEADER_BYTES = 6;

    public static final int MAP_STAT_LOADS = 0;
    public static final int MAP_STAT_LOADED_ENTRIES = 1;
    public static final int MAP_STAT_OVERSIZED = 2;
    public static final int MAP_STAT_NOT_CACHED_OPS = 3;
    public static final int MAP_STATS_COUNT = 4;

    // --- write calls' answer: bits ---

    public static final int WRITE_NOT_CACHED = 1;
    public static final int WRITE_PENDING = 2;

    // --- nativeStats: a long[STATS_COUNT] ---

    public static final int STAT_HITS = 0;
    public static final int STAT_ABSENT_HITS = 1;
    public static final int STAT_MISSES = 2;
    public static final int STAT_BYPASSED_GETS = 3;
    public static final int STAT_PUTS = 4;
    public static final int STAT_REMOVES = 5;
    public static final int STAT_FILLS = 6;
    public static final int STAT_EVICTIONS = 7;
    public static final int STAT_DIRTY_WRITEBACKS = 8;
    public static final int STAT_TOMBSTONES = 9;
    public static final int STAT_NOT_CACHED = 10;
    public static final int STAT_ENTRIES = 11;
    public static final int STAT_BYTES = 12;
    public static final int STAT_DIRTY_ENTRIES = 13;
    public static final int STAT_DIRTY_BYTES = 14;
    public static final int STAT_CAPACITY_BYTES = 15;
    public static final int STAT_CAPACITY_ENTRIES = 16;

    /** The whole cache's only (0 for one state). */
    public static final int STAT_ALLOCATED_BYTES = 17;

    public static final int STATS_COUNT = 18;

    // --- nativeQuota: a long[QUOTA_COUNT] ---

    public static final int QUOTA_BYTES = 0;
    public static final int QUOTA_ENTRIES = 1;
    public static final int QUOTA_COUNT = 2;

    // --- NativeMemoryBudget.nativeJoinedFacts: a long[JOINED_COUNT] ---

    public static final int JOINED_SUBTASKS = 0;
    public static final int JOINED_QUOTA_BYTES = 1;
    public static final int JOINED_QUOTA_ENTRIES = 2;
    public static final int JOINED_COUNT = 3;

    // --- the cache's eviction policies (falcon::CachePolicy) ---

    public static final int POLICY_W_TINY_LFU = 0;
    public static final int POLICY_LRU = 1;

    // --- the tuning advisor: what a column family holds (falcon::StateKind) ---

    public static final int STATE_KIND_VALUE = 0;
    public static final int STATE_KIND_LIST = 1;
    public static final int STATE_KIND_MAP = 2;
    public static final int STATE_KIND_REDUCING = 3;
    public static final int STATE_KIND_AGGREGATING = 4;
    public static final int STATE_KIND_TIMER = 5;
    public static final int STATE_KIND_DEFAULT = 6;
    public static final int STATE_KIND_UNKNOWN = 7;

    // --- the tuning advisor: memtable and filter kinds (falcon::MemtableKind, FilterPolicyKind)
    // ---

    public static final int MEMTABLE_SKIP_LIST = 0;
    public static final int MEMTABLE_HASH_LINK_LIST = 1;
    public static final int FILTER_KEEP = 0;
    public static final int FILTER_BLOOM = 1;

    // --- the tuning advisor: why a column family is not tuned (falcon::UntunedReason) ---

    public static final int REASON_NONE = 0;
    public static final int REASON_TIMER_COLUMN_FAMILY = 1;
    public static final int REASON_DEFAULT_COLUMN_FAMILY = 2;
    public static final int REASON_KIND_NOT_TUNED = 3;
    public static final int REASON_HASH_MEMTABLE_DISABLED = 4;
    public static final int REASON_RANGE_FILTER_DISABLED = 5;
    public static final int REASON_KEY_LENGTH_UNKNOWN = 6;
    public static final int REASON_NAMESPACE_LENGTH_UNKNOWN = 7;
    public static final int REASON_PREFIX_TOO_LONG = 8;

    /** Produced by the Java side only (the advisor is native). */
    public static final int REASON_NATIVE_LIBRARY_NOT_LOADED = 9;

    public static final int REASON_WRITE_BUFFERS_TOO_SMALL = 10;

    // --- the tuning advisor's answer: a long[ADVICE_COUNT] ---

    /** 1 when the column family is tuned, else 0. */
    public static final int ADVICE_TUNED = 0;

    public static final int ADVICE_REASON = 1;
    public static final int ADVICE_MEMTABLE = 2;
    public static final int ADVICE_HASH_BUCKETS = 3;
    public static final int ADVICE_PREFIX_LENGTH = 4;

    /** The memtable prefix bloom ratio, in millionths. */
    public static final int ADVICE_BLOOM_RATIO_MICROS = 5;

    public static final int ADVICE_FILTER = 6;
    public static final int ADVICE_BLOOM_BITS_PER_KEY = 7;

    /** -1 keep, 0 off, 1 on. */
    public static final int ADVICE_WHOLE_KEY_FILTERING = 8;

    /** 0: keep. */
    public static final int ADVICE_ARENA_BLOCK_SIZE = 9;

    /** Bytes allocated per memtable whatever it holds. */
    public static final int ADVICE_FIXED_ALLOCATION = 10;

    public static final int ADVICE_COUNT = 11;

    private NativeLayout() {}
}
