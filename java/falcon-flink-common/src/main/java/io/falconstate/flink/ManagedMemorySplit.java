/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

/**
 * The one place where the state-backend share {@code f} of a slot's managed memory is divided
 * between RocksDB and Falcon's cache: RocksDB reserves {@code (1 - a)·f}, the cache {@code a·f}
 * (architecture, "Memory budget"). RocksDB's share is reserved through Flink's own shared-resource
 * mechanism, so every RocksDB instance of the slot keeps sharing one block cache and write-buffer
 * manager.
 *
 * <p>{@code a} is {@code state.backend.falcon.cache.managed-memory-share} when the cache is on and
 * sized from managed memory, else 0: RocksDB then gets exactly {@code f}, the same reservation as
 * the stock backend (the parity test checks it). The cache's {@code a·f} is reserved by {@code
 * CacheBudgets} as a second slot-wide shared resource.
 */
final class ManagedMemorySplit {

    /** {@code a}: the cache's share of the state-backend managed memory. */
    private final double cacheShare;

    private ManagedMemorySplit(double cacheShare) {
        if (!(cacheShare >= 0.0 && cacheShare < 1.0)) {
            throw new IllegalArgumentException("cache share must be in [0, 1): " + cacheShare);
        }
        this.cacheShare = cacheShare;
    }

    /** Everything to RocksDB (cache off, or sized outside managed memory). */
    static ManagedMemorySplit rocksDbOnly() {
        return new ManagedMemorySplit(0.0);
    }

    /** The cache takes {@code cacheShare} (a) of the state-backend fraction, RocksDB the rest. */
    static ManagedMemorySplit withCacheShare(double cacheShare) {
        return new ManagedMemorySplit(cacheShare);
    }

    double cacheShare() {
        return cacheShare;
    }

    /** RocksDB's fraction of the slot, {@code (1 - a)·f}; exactly {@code f} when {@code a = 0}. */
    double rocksDbFraction(double stateBackendFraction) {
        return cacheShare == 0.0 ? stateBackendFraction : stateBackendFraction * (1.0 - cacheShare);
    }

    /** The cache's fraction of the slot, {@code a·f}. */
    double cacheFraction(double stateBackendFraction) {
        return stateBackendFraction * cacheShare;
    }
}
