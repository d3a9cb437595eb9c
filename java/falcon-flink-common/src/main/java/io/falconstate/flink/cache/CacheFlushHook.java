/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

/**
 * What {@link FalconKeyedStateBackend} tells a write-back cache before RocksDB is read or written
 * around it. Every call comes from the task thread that owns the keyed backend, never from an
 * asynchronous checkpoint thread. Implementations must leave RocksDB holding every acknowledged
 * update when a {@code flush*} method returns.
 *
 * <p>The hot-state cache implements it; {@link FalconKeyedStateBackend} calls it at every flush
 * point, before it flushes hash memtables.
 */
public interface CacheFlushHook {

    /**
     * Before a checkpoint's synchronous phase, a canonical savepoint or a whole-backend count
     * ({@code numKeyValueStateEntries}): write every dirty entry of every state into RocksDB.
     */
    void flushAll() throws Exception;

    /**
     * Before a scan of one state's column family ({@code getKeys}, {@code getKeysAndNamespaces},
     * {@code applyToAllKeys}): write that state's dirty entries into RocksDB.
     */
    void flushState(String stateName) throws Exception;

    /**
     * Before an existing state is registered again (possibly with a new serializer, which may
     * migrate every value in RocksDB): write that state's dirty entries and drop all its entries.
     */
    void flushAndDropState(String stateName) throws Exception;

    /**
     * The keyed backend is being disposed: release native memory. Dirty entries are discarded (a
     * disposed backend's state is never read again).
     */
    void release();
}
