/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;

/**
 * Falcon's access to one state's column family inside Flink's RocksDB keyed backend, whose {@code
 * db} field and {@code getColumnFamilyHandle} are not public in Flink 1.16. Same class loading rule
 * as {@link FalconRocksDBBackendBuilder}: the Falcon jar belongs in {@code lib/}.
 *
 * <p>Call from the task thread that owns the backend, while it is not disposed. Stateless.
 */
public final class FalconColumnFamilyAccess {

    private FalconColumnFamilyAccess() {}

    /** Whether the backend keeps timers in RocksDB (not Flink's heap timers). */
    public static boolean timersInRocksDb(RocksDBKeyedStateBackend<?> backend) {
        return backend.getPriorityQueueFactory() instanceof RocksDBPriorityQueueSetFactory;
    }

    /**
     * Flushes the memtable of {@code stateName}'s column family and waits until it is written, so
     * that every iterator opened afterwards finds all its entries in SST files. Returns false (and
     * does nothing) when the backend has no such column family.
     */
    public static boolean flushColumnFamily(RocksDBKeyedStateBackend<?> backend, String stateName)
            throws RocksDBException {
        return flush(backend, stateName, true);
    }

    /**
     * Starts the flush of {@code stateName}'s memtable without waiting for it: RocksDB's flush
     * thread sorts and writes it while the caller goes on. Returns false (and does nothing) when
     * the backend has no such column family.
     */
    public static boolean startFlush(RocksDBKeyedStateBackend<?> backend, String stateName)
            throws RocksDBException {
        return flush(backend, stateName, false);
    }

    private static boolean flush(
            RocksDBKeyedStateBackend<?> backend, String stateName, boolean waitForFlush)
            throws RocksDBException {
        ColumnFamilyHandle handle = backend.getColumnFamilyHandle(stateName);
        if (handle == null) {
            return false;
        }
        try (FlushOptions options = new FlushOptions().setWaitForFlush(waitForFlush)) {
            backend.db.flush(options, handle);
        }
        return true;
    }

    /** Memtable flushes RocksDB is running now (all column families). */
    public static long flushesRunning(RocksDBKeyedStateBackend<?> backend) throws RocksDBException {
        return backend.db.getLongProperty("rocksdb.num-running-flushes");
    }

    /** Entries in the active memtable of {@code stateName}'s column family; -1 if it has none. */
    public static long activeMemtableEntries(RocksDBKeyedStateBackend<?> backend, String stateName)
            throws RocksDBException {
        ColumnFamilyHandle handle = backend.getColumnFamilyHandle(stateName);
        return handle == null
                ? -1
                : backend.db.getLongProperty(handle, "rocksdb.num-entries-active-mem-table");
    }
}
