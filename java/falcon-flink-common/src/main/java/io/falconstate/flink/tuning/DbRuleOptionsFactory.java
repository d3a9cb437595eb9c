/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.apache.flink.contrib.streaming.state.RocksDBNativeMetricOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;

import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.WriteOptions;

import javax.annotation.Nullable;

import java.util.Collection;

/**
 * The user's options factory (may be null) plus the DB-wide rule of the hash memtable: a
 * HashLinkList memtable cannot take concurrent writes, and {@code allow_concurrent_memtable_write}
 * is fixed when the DB opens, so Flink's resource container applies {@link #applyDbOptions} to the
 * options of every DB the backend opens (its own and restore's temporary ones) whenever hash tuning
 * is on. Every other hook delegates unchanged. Not serialized with the job: built on the
 * TaskManager for one keyed backend.
 */
public final class DbRuleOptionsFactory implements RocksDBOptionsFactory {
    private static final long serialVersionUID = 1L;

    @Nullable private final RocksDBOptionsFactory user;
    private final boolean hashMemtableEnabled;

    public DbRuleOptionsFactory(@Nullable RocksDBOptionsFactory user, boolean hashMemtableEnabled) {
        this.user = user;
        this.hashMemtableEnabled = hashMemtableEnabled;
    }

    /** The rule itself: concurrent memtable writes off when hash tuning is on. */
    public static DBOptions applyDbOptions(DBOptions dbOptions, boolean hashMemtableEnabled) {
        if (hashMemtableEnabled) {
            dbOptions.setAllowConcurrentMemtableWrite(false);
        }
        return dbOptions;
    }

    @Override
    public DBOptions createDBOptions(
            DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        DBOptions options =
                user == null
                        ? currentOptions
                        : user.createDBOptions(currentOptions, handlesToClose);
        return applyDbOptions(options, hashMemtableEnabled);
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(
            ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return user == null
                ? currentOptions
                : user.createColumnOptions(currentOptions, handlesToClose);
    }

    @Override
    public RocksDBNativeMetricOptions createNativeMetricsOptions(
            RocksDBNativeMetricOptions nativeMetricOptions) {
        return user == null
                ? nativeMetricOptions
                : user.createNativeMetricsOptions(nativeMetricOptions);
    }

    @Override
    public WriteOptions createWriteOptions(
            WriteOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return user == null
                ? currentOptions
                : user.createWriteOptions(currentOptions, handlesToClose);
    }

    @Override
    public ReadOptions createReadOptions(
            ReadOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return user == null
                ? currentOptions
                : user.createReadOptions(currentOptions, handlesToClose);
    }
}
