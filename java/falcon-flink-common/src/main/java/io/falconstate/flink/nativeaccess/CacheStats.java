/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

/**
 * The statistics of one cached state, or of a whole cache, at one moment (what {@code
 * falcon::CacheStats} counts, plus the cache's capacity). Immutable.
 */
public final class CacheStats {

    /** All zero: a state the cache does not know, or a released cache. */
    public static final CacheStats EMPTY = new CacheStats(new long[NativeLayout.STATS_COUNT]);

    private final long[] values;

    /** Takes ownership of {@code values}, laid out as {@link NativeLayout}'s {@code STAT_*}. */
    CacheStats(long[] values) {
        this.values = values;
    }

    /** Gets answered with a cached value. */
    public long hits() {
        return values[NativeLayout.STAT_HITS];
    }

    /** Gets answered "cached as absent". */
    public long absentHits() {
        return values[NativeLayout.STAT_ABSENT_HITS];
    }

    /** Gets that had to read RocksDB and fill. */
    public long misses() {
        return values[NativeLayout.STAT_MISSES];
    }

    /** Gets of keys the cache cannot hold (over a limit), answered by RocksDB. */
    public long bypassedGets() {
        return values[NativeLayout.STAT_BYPASSED_GETS];
    }

    public long puts() {
        return values[NativeLayout.STAT_PUTS];
    }

    public long removes() {
        return values[NativeLayout.STAT_REMOVES];
    }

    public long fills() {
        return values[NativeLayout.STAT_FILLS];
    }

    /** Entries evicted, clean or dirty. */
    public long evictions() {
        return values[NativeLayout.STAT_EVICTIONS];
    }

    /** Dirty entries written back (evictions, write-ahead, flushes, the dirty cap). */
    public long dirtyWriteBacks() {
        return values[NativeLayout.STAT_DIRTY_WRITEBACKS];
    }

    /** Deletes written back. */
    public long tombstones() {
        return values[NativeLayout.STAT_TOMBSTONES];
    }

    /** Writes the cache did not take (the caller wrote RocksDB itself). */
    public long notCached() {
        return values[NativeLayout.STAT_NOT_CACHED];
    }

    public long entries() {
        return values[NativeLayout.STAT_ENTRIES];
    }

    /** Charged bytes (key + value + per-entry overhead). */
    public long bytes() {
        return values[NativeLayout.STAT_BYTES];
    }

    public long dirtyEntries() {
        return values[NativeLayout.STAT_DIRTY_ENTRIES];
    }

    public long dirtyBytes() {
        return values[NativeLayout.STAT_DIRTY_BYTES];
    }

    /** The whole cache's byte bound when these were read. */
    public long capacityBytes() {
        return values[NativeLayout.STAT_CAPACITY_BYTES];
    }

    /** The whole cache's entry bound when these were read (0: none). */
    public long capacityEntries() {
        return values[NativeLayout.STAT_CAPACITY_ENTRIES];
    }

    /**
     * What the cache's allocators hold (entry blocks, index, admission sketch): the memory behind
     * {@link #bytes()}. Whole-cache statistics only; 0 for one state.
     */
    public long allocatedBytes() {
        return values[NativeLayout.STAT_ALLOCATED_BYTES];
    }

    @Override
    public String toString() {
        return "CacheStats{hits="
                + hits()
                + ", absentHits="
                + absentHits()
                + ", misses="
                + misses()
                + ", entries="
                + entries()
                + ", bytes="
                + bytes()
                + ", dirtyBytes="
                + dirtyBytes()
                + ", evictions="
                + evictions()
                + "}";
    }
}
