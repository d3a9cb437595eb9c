/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;

/** Test-only view of a state's column family in Flink's RocksDB keyed backend. */
public final class TuningTestAccess {

    private TuningTestAccess() {}

    /** A few RocksDB properties of one state's column family, for assertion messages. */
    public static String describe(RocksDBKeyedStateBackend<?> backend, String state)
            throws Exception {
        ColumnFamilyHandle handle = backend.getColumnFamilyHandle(state);
        StringBuilder sb = new StringBuilder(state).append(':');
        for (String p :
                new String[] {
                    "rocksdb.num-entries-active-mem-table",
                    "rocksdb.num-immutable-mem-table",
                    "rocksdb.num-files-at-level0",
                    "rocksdb.cur-size-active-mem-table",
                    "rocksdb.estimate-num-keys"
                }) {
            sb.append(' ').append(p.substring(8)).append('=');
            sb.append(backend.db.getProperty(handle, p));
        }
        return sb.toString();
    }

    /** Whether the backend's RocksDB gives snapshots (it does not once any CF updates in place). */
    public static boolean givesSnapshots(RocksDBKeyedStateBackend<?> backend) {
        Snapshot snapshot = backend.db.getSnapshot();
        if (snapshot == null) {
            return false;
        }
        backend.db.releaseSnapshot(snapshot);
        snapshot.close();
        return true;
    }

    /**
     * Every entry of a state's column family, memtables and SST files alike: a total-order
     * iterator, which also walks a HashLinkList memtable completely.
     */
    public static long entries(RocksDBKeyedStateBackend<?> backend, String state) {
        ColumnFamilyHandle handle = backend.getColumnFamilyHandle(state);
        long count = 0;
        try (ReadOptions options = new ReadOptions().setTotalOrderSeek(true);
                RocksIterator it = backend.db.newIterator(handle, options)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                count++;
            }
        }
        return count;
    }

    /** Every key and value of a state's column family, as hex text in key order. */
    public static java.util.List<String> dump(RocksDBKeyedStateBackend<?> backend, String state) {
        ColumnFamilyHandle handle = backend.getColumnFamilyHandle(state);
        java.util.List<String> out = new java.util.ArrayList<>();
        try (ReadOptions options = new ReadOptions().setTotalOrderSeek(true);
                RocksIterator it = backend.db.newIterator(handle, options)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                out.add(hex(it.key()) + "=" + hex(it.value()));
            }
        }
        return out;
    }

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            sb.append(Character.forDigit((b >> 4) & 0xF, 16))
                    .append(Character.forDigit(b & 0xF, 16));
        }
        return sb.toString();
    }
}
