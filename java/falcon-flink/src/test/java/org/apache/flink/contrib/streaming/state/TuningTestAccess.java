/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import org.rocksdb.ColumnFamilyHandle;

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
}
