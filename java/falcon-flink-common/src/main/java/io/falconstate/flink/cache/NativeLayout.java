/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

/**
 * Every layout that crosses the JNI boundary, defined once on the Java side. The native side
 * defines the same once too ({@code jni/native_layout.h}). Change one, change the other, and bump
 * {@link #LAYOUT_VERSION} in both: {@code NativeLibrary} refuses a library whose {@code
 * FalconNative.layoutVersion()} differs, and Falcon then runs as the stock backend.
 */
public final class NativeLayout {

    /** Compared with the library's own at load time. */
    public static final int LAYOUT_VERSION = 4;

    // -- a write-back record (native byte order): header, key, value ---------------------------

    public static final int RECORD_STATE_ID_OFFSET = 0;
    public static final int RECORD_KEY_LENGTH_OFFSET = 4;

    /** {@link #RECORD_DELETE} for a delete (no value bytes follow the key). */
    public static final int RECORD_VALUE_LENGTH_OFFSET = 8;

    /** A map record's leading key bytes that name its map; 0 for a ValueState's record. */
    public static final int RECORD_PREFIX_LENGTH_OFFSET = 12;

    public static final int RECORD_HEADER_BYTES = 16;
    public static final int RECORD_DELETE = -1;

    // -- nativeGet's answers other than a hit's length ------------------------------------------

    public static final int GET_MISS = -1;
    public static final int GET_ABSENT = -2;
    public static final int GET_BYPASS = -3;

    /** A hit of {@code GET_NEED_BUFFER - result} bytes that does not fit. */
    public static final int GET_NEED_BUFFER = -16;

    // -- NativeMapCache: codes besides GET_*, the scan header, map statistics ------------------

    /** The map is too large to cache: RocksDB answers. */
    public static final int MAP_OVERSIZED = -5;

    /** nativeScan: io[0, 4) = records, io[4] = more (0/1), the packed records from here. */
    public static final int SCAN_HEADER_BYTES = 8;

    /** A packed record: u16 user key length, u32 value length, user key, value. */
    public static final int PACKED_HEADER_BYTES = 6;

    static final int MAP_STAT_LOADS = 0;
    static final int MAP_STAT_LOADED_ENTRIES = 1;
    static final int MAP_STAT_OVERSIZED = 2;
    static final int MAP_STAT_NOT_CACHED_OPS = 3;
    static final int MAP_STATS_COUNT = 4;

    // -- write calls' answer: bits ---------------------------------------------------------------

    public static final int WRITE_NOT_CACHED = 1;
    public static final int WRITE_PENDING = 2;

    // -- nativeStats: a long[STATS_COUNT] --------------------------------------------------------

    static final int STAT_HITS = 0;
    static final int STAT_ABSENT_HITS = 1;
    static final int STAT_MISSES = 2;
    static final int STAT_BYPASSED_GETS = 3;
    static final int STAT_PUTS = 4;
    static final int STAT_REMOVES = 5;
    static final int STAT_FILLS = 6;
    static final int STAT_EVICTIONS = 7;
    static final int STAT_DIRTY_WRITEBACKS = 8;
    static final int STAT_TOMBSTONES = 9;
    static final int STAT_NOT_CACHED = 10;
    static final int STAT_ENTRIES = 11;
    static final int STAT_BYTES = 12;
    static final int STAT_DIRTY_ENTRIES = 13;
    static final int STAT_DIRTY_BYTES = 14;
    static final int STAT_BYPASS_ENTERED = 15;
    static final int STAT_BYPASSED_NOW = 16;
    static final int STAT_CAPACITY_BYTES = 17;
    static final int STAT_CAPACITY_ENTRIES = 18;

    /** The whole cache's only (0 for one state). */
    static final int STAT_ALLOCATED_BYTES = 19;

    static final int STATS_COUNT = 20;

    // -- nativeQuota: a long[QUOTA_COUNT] --------------------------------------------------------

    static final int QUOTA_BYTES = 0;
    static final int QUOTA_ENTRIES = 1;
    static final int QUOTA_COUNT = 2;

    // -- NativeMemoryBudget.nativeJoinedFacts: a long[JOINED_COUNT] ------------------------------

    static final int JOINED_SUBTASKS = 0;
    static final int JOINED_QUOTA_BYTES = 1;
    static final int JOINED_QUOTA_ENTRIES = 2;
    static final int JOINED_COUNT = 3;

    private NativeLayout() {}
}
