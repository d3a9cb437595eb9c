/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;

/**
 * Reads two package-private members of Flink's {@link RocksDBKeyedStateBackend} that Falcon's
 * write-back cache needs: the database and a state's column family. It lives in Flink's package on
 * purpose and works only when this jar is loaded by the same class loader as Flink's RocksDB
 * backend, i.e. from {@code $FLINK_HOME/lib} (see docs/architecture.md).
 */
public final class FalconRocksDBAccess {

    private FalconRocksDBAccess() {}

    /** The backend's database. Valid until the backend is disposed. */
    public static RocksDB db(RocksDBKeyedStateBackend<?> backend) {
        return backend.db;
    }

    /** The column family of a registered state; null when no such state is registered. */
    public static ColumnFamilyHandle columnFamily(
            RocksDBKeyedStateBackend<?> backend, String stateName) {
        return backend.getColumnFamilyHandle(stateName);
    }
}
