/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

/**
 * What {@link HotStateCacheManager} needs of a cached state, whatever its kind ({@link
 * CachedValueState}, {@link CachedMapState}).
 *
 * <p>Not thread-safe: the task thread.
 */
interface CachedState {

    /** The state's id in the native cache. */
    int stateId();

    /** Flink's own RocksDB state this one wraps (a re-registration may bring another). */
    Object rocksDbState();

    /** True for a MapState: the cache also keeps map statistics for it. */
    boolean isMap();

    /**
     * Lets go of what pins RocksDB memtables or files (reused iterators): at every flush point, and
     * before release. Idempotent.
     */
    void closeIterators();
}
