/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.CacheFlushHook;

import org.apache.flink.contrib.streaming.state.FalconRocksDBAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.util.FlinkRuntimeException;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

import java.util.HashMap;
import java.util.Map;

/**
 * The hot-state cache of one keyed backend (one subtask): the native cache, the shared key
 * builder, the write-back path into RocksDB, and the {@link CachedValueState}s built on them.
 *
 * <p>As the backend's {@link CacheFlushHook} it makes RocksDB complete before anything reads
 * RocksDB around the cache: every snapshot (checkpoint or savepoint), every count, every
 * whole-state scan, and every re-registration (which may migrate values). All of it runs on the
 * task thread; asynchronous checkpoint threads never touch the cache.
 *
 * <p>Write-back invariant: when a cache call reports pending write-backs, they are written into
 * RocksDB before the call's caller returns ({@link #afterWrite}), so an entry that left the cache
 * is always in RocksDB before anyone can read it there.
 *
 * <p>Not thread-safe (task thread). {@link #release()} is idempotent and frees native memory
 * without writing anything back.
 */
public final class HotStateCacheManager<K> implements CacheFlushHook {

    private final RocksDBKeyedStateBackend<K> rocksDb;
    private final RocksDB db;
    private final WriteOptions writeOptions;
    private final NativeHotStateCache cache;
    private final CacheKeyBuilder<K> keyBuilder;
    private final WriteBackWriter writer;
    private final Map<String, CachedValueState<K, ?, ?>> states = new HashMap<>();
    private int nextStateId;
    private boolean released;

    /**
     * Takes ownership of {@code cache} (closed by {@link #release()}). Registers the key builder
     * as a key-selection listener of {@code rocksDb}.
     */
    public HotStateCacheManager(RocksDBKeyedStateBackend<K> rocksDb, NativeHotStateCache cache) {
        this.rocksDb = rocksDb;
        this.db = FalconRocksDBAccess.db(rocksDb);
        this.writeOptions = rocksDb.getWriteOptions();
        this.cache = cache;
        this.keyBuilder =
                new CacheKeyBuilder<>(
                        rocksDb.getKeyContext(),
                        rocksDb.getKeySerializer(),
                        rocksDb.getKeyGroupPrefixBytes());
        rocksDb.registerKeySelectionListener(keyBuilder);
        this.writer = new WriteBackWriter(db, writeOptions);
    }

    /**
     * Wraps RocksDB's ValueState {@code stateName}. Called after RocksDB registered (or
     * re-registered) it; returns the same wrapper for the same name, refreshed.
     */
    @SuppressWarnings("unchecked")
    public <N, V> InternalValueState<K, N, V> wrap(
            String stateName, InternalValueState<K, N, V> rocksDbState, V defaultValue) {
        ColumnFamilyHandle columnFamily = FalconRocksDBAccess.columnFamily(rocksDb, stateName);
        if (columnFamily == null) {
            throw new IllegalStateException("[FALCON] no column family for state " + stateName);
        }
        CachedValueState<K, N, V> existing = (CachedValueState<K, N, V>) states.get(stateName);
        if (existing != null && existing.rocksDbState() == rocksDbState) {
            existing.refresh(columnFamily, defaultValue);
            writer.setColumnFamily(existing.stateId(), columnFamily);
            return existing;
        }
        int stateId = existing != null ? existing.stateId() : nextStateId++;
        CachedValueState<K, N, V> state =
                new CachedValueState<>(this, stateId, rocksDbState, columnFamily, defaultValue);
        writer.setColumnFamily(stateId, columnFamily);
        states.put(stateName, state);
        return state;
    }

    /** Drains pending write-backs if {@code code} (from a cache write call) reports any. */
    void afterWrite(int code) {
        if ((code & NativeHotStateCache.WRITE_PENDING) != 0) {
            drain();
        }
    }

    private void drain() {
        try {
            writer.drain(cache);
        } catch (RocksDBException e) {
            throw new FlinkRuntimeException("[FALCON] writing cached state back to RocksDB failed", e);
        }
    }

    // -- CacheFlushHook ------------------------------------------------------------------------

    @Override
    public void flushAll() {
        if (released || states.isEmpty()) {
            return;
        }
        afterWrite(cache.flush(-1));
    }

    @Override
    public void flushState(String stateName) {
        CachedValueState<K, ?, ?> state = states.get(stateName);
        if (released || state == null) {
            return;
        }
        afterWrite(cache.flush(state.stateId()));
    }

    /** Writes back the dirty entries of one cached state. */
    void flushStateId(int stateId) {
        if (!released) {
            afterWrite(cache.flush(stateId));
        }
    }

    @Override
    public void flushAndDropState(String stateName) {
        CachedValueState<K, ?, ?> state = states.get(stateName);
        if (released || state == null) {
            return;
        }
        afterWrite(cache.flush(state.stateId()));
        cache.dropState(state.stateId());
    }

    @Override
    public void release() {
        if (released) {
            return;
        }
        released = true;
        rocksDb.deregisterKeySelectionListener(keyBuilder);
        cache.close();
        writer.close();
    }

    // -- accessors for the states and tests --------------------------------------------------------

    NativeHotStateCache cache() {
        return cache;
    }

    CacheKeyBuilder<K> keyBuilder() {
        return keyBuilder;
    }

    RocksDB db() {
        return db;
    }

    WriteOptions writeOptions() {
        return writeOptions;
    }

    /** Statistics of one cached state ({@link NativeHotStateCache#STAT_COUNT} values). */
    public long[] stats(String stateName) {
        long[] out = new long[NativeHotStateCache.STAT_COUNT];
        CachedValueState<K, ?, ?> state = states.get(stateName);
        if (state != null && !released) {
            cache.stats(state.stateId(), out);
        }
        return out;
    }

    /** Statistics of the whole cache. */
    public long[] totalStats() {
        long[] out = new long[NativeHotStateCache.STAT_COUNT];
        if (!released) {
            cache.stats(-1, out);
        }
        return out;
    }

    public long recordsWrittenBack() {
        return writer.recordsWritten();
    }

    public long bytesWrittenBack() {
        return writer.bytesWritten();
    }

    public boolean isCached(String stateName) {
        return states.containsKey(stateName);
    }
}
