/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.ConfigurableRocksDBOptionsFactory;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;

import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;

import java.util.Collection;

/**
 * An options factory named in {@code state.backend.rocksdb.options-factory} for the parity test: it
 * sets values no other configuration sets, read from its own key, so the test can see that both
 * backends applied it.
 */
public class ParityOptionsFactory implements ConfigurableRocksDBOptionsFactory {

    private static final long serialVersionUID = 1L;

    static final ConfigOption<Integer> L0_TRIGGER =
            ConfigOptions.key("test.parity.level0-trigger").intType().defaultValue(7);

    /** A {@link CompressionType} name; empty leaves the compression alone. */
    static final ConfigOption<String> COMPRESSION =
            ConfigOptions.key("test.parity.compression").stringType().defaultValue("");

    private int level0Trigger = L0_TRIGGER.defaultValue();
    private String compression = COMPRESSION.defaultValue();

    @Override
    public DBOptions createDBOptions(DBOptions currentOptions, Collection<AutoCloseable> handles) {
        return currentOptions.setMaxSubcompactions(3).setBytesPerSync(1 << 20);
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(
            ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handles) {
        if (!compression.isEmpty()) {
            currentOptions.setCompressionType(CompressionType.valueOf(compression));
        }
        return currentOptions
                .setLevel0FileNumCompactionTrigger(level0Trigger)
                .setMaxWriteBufferNumberToMaintain(2);
    }

    @Override
    public RocksDBOptionsFactory configure(ReadableConfig configuration) {
        level0Trigger = configuration.get(L0_TRIGGER);
        compression = configuration.get(COMPRESSION);
        return this;
    }
}
