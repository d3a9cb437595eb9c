/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.CacheFlushHook;

/**
 * Invariant 1 of the column-family tuning: before any whole-column-family scan of a column family
 * with a HashLinkList memtable (getKeys, getKeysAndNamespaces, applyToAllKeys, entry counts,
 * re-registration with migration, canonical savepoints), its memtable is flushed, because with a
 * prefix extractor and default ReadOptions such scans do not see memtable entries.
 *
 * <p>Wraps the cache's hook: the cache writes its dirty entries into RocksDB first, then the
 * memtable holding them is flushed. Task thread only, like every {@link CacheFlushHook} call.
 */
public final class HashColumnFamilyFlushHook implements CacheFlushHook {

    /** Flushes one state's column family (the keyed backend's RocksDB). */
    @FunctionalInterface
    public interface ColumnFamilyFlusher {
        void flush(String stateName) throws Exception;
    }

    private final CacheFlushHook cache;
    private final ColumnFamilyTuner tuner;
    private final ColumnFamilyFlusher flusher;

    public HashColumnFamilyFlushHook(
            CacheFlushHook cache, ColumnFamilyTuner tuner, ColumnFamilyFlusher flusher) {
        this.cache = cache;
        this.tuner = tuner;
        this.flusher = flusher;
    }

    @Override
    public void flushAll() throws Exception {
        cache.flushAll();
        flushHashColumnFamilies();
    }

    /**
     * Flushes every hash column family's memtable, without touching the cache. Also called once
     * right after a restore, which may have written restored entries into hash memtables.
     */
    public void flushHashColumnFamilies() throws Exception {
        for (String state : tuner.hashColumnFamilies()) {
            flusher.flush(state);
        }
    }

    @Override
    public void flushState(String stateName) throws Exception {
        cache.flushState(stateName);
        if (tuner.needsFlushBeforeScan(stateName)) {
            flusher.flush(stateName);
        }
    }

    @Override
    public void flushAndDropState(String stateName) throws Exception {
        cache.flushAndDropState(stateName);
        if (tuner.needsFlushBeforeScan(stateName)) {
            flusher.flush(stateName);
        }
    }

    /**
     * Releases the cache, then the tuner's filter objects (RocksDB's table factories hold their
     * own references to the filters, so this is safe before the DB closes).
     */
    @Override
    public void release() {
        try {
            cache.release();
        } finally {
            tuner.close();
        }
    }

    /** The tuner whose hash column families this hook flushes. */
    public ColumnFamilyTuner tuner() {
        return tuner;
    }

    /** The wrapped cache hook. */
    public CacheFlushHook cacheHook() {
        return cache;
    }

    @Override
    public String toString() {
        return "HashColumnFamilyFlushHook{" + cache + '}';
    }
}
