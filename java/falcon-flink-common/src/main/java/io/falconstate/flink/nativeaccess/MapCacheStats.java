/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

/** The map counters of one MapState in the native cache ({@code falcon::MapStats}). */
public final class MapCacheStats {

    public static final MapCacheStats EMPTY =
            new MapCacheStats(new long[NativeLayout.MAP_STATS_COUNT]);

    private final long[] values;

    MapCacheStats(long[] values) {
        this.values = values;
    }

    /** Maps loaded from RocksDB into the cache. */
    public long loads() {
        return values[NativeLayout.MAP_STAT_LOADS];
    }

    /** User entries those loads brought. */
    public long loadedEntries() {
        return values[NativeLayout.MAP_STAT_LOADED_ENTRIES];
    }

    /** Loads and puts that found a map over the cap (then not cached). */
    public long oversized() {
        return values[NativeLayout.MAP_STAT_OVERSIZED];
    }

    /** Operations on maps the cache does not hold, answered by RocksDB. */
    public long notCachedOps() {
        return values[NativeLayout.MAP_STAT_NOT_CACHED_OPS];
    }

    @Override
    public String toString() {
        return "MapCacheStats{loads="
                + loads()
                + ", loadedEntries="
                + loadedEntries()
                + ", oversized="
                + oversized()
                + ", notCachedOps="
                + notCachedOps()
                + '}';
    }
}
