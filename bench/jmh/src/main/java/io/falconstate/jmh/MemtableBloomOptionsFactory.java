/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */

package io.falconstate.jmh;

import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;

import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

import java.util.Collection;
import java.util.Properties;

/**
 * Stock RocksDB with a whole-key bloom filter in every memtable: {@code
 * memtable_prefix_bloom_size_ratio} and {@code memtable_whole_key_filtering}. frocksdbjni 6.20.3
 * has a setter for the first only; both go through RocksDB's options-string parser ({@code
 * getColumnFamilyOptionsFromProps}, which returns null for a key it does not know). The column
 * options it returns start from RocksDB's defaults, as Flink's own (predefined {@code DEFAULT}) do;
 * Flink sets the block cache and table format on them afterwards.
 */
public final class MemtableBloomOptionsFactory implements RocksDBOptionsFactory {

    private static final long serialVersionUID = 1L;

    @Override
    public DBOptions createDBOptions(DBOptions currentOptions, Collection<AutoCloseable> handles) {
        return currentOptions;
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(
            ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handles) {
        Properties p = new Properties();
        p.setProperty("memtable_prefix_bloom_size_ratio", "0.1");
        p.setProperty("memtable_whole_key_filtering", "true");
        ColumnFamilyOptions options = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(p);
        if (options == null) {
            throw new IllegalStateException("RocksDB rejected the memtable bloom options " + p);
        }
        handles.add(options);
        return options;
    }
}
