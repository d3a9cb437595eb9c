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
 * <p>This version has no cache, so {@code a = 0}: RocksDB gets exactly {@code f}, the same
 * reservation as the stock backend (the parity test checks it). The cache issue makes {@code a}
 * configurable here.
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

    /** The split of this version: everything to RocksDB. */
    static ManagedMemorySplit rocksDbOnly() {
        return new ManagedMemorySplit(0.0);
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
