/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.tuning.ColumnFamilyTuner;
import io.falconstate.flink.tuning.Lz4Compression;

import org.apache.flink.contrib.streaming.state.RocksDBResourceContainer;

import org.rocksdb.ColumnFamilyOptions;

import javax.annotation.Nullable;

import java.util.function.Function;

/**
 * The per-state column-family options function Falcon hands to Flink's RocksDB builder: RocksDB
 * calls it with the state name for every column family it creates or restores (state column
 * families, timer column families {@code _timer_state/...}, and {@code "default"}), then sets
 * Flink's merge operator on the result.
 *
 * <p>It returns what the stock backend returns (the resource container's options, a new object per
 * call), which the parity test checks; with a {@link ColumnFamilyTuner} it then tunes those options
 * from the registered state's kind and serializers ({@link #registry()}). The tuner never touches
 * timer column families or {@code default}, nor column families whose state is not (yet)
 * registered, such as those a restore creates before any state registers. With {@code lz4} every
 * column family, those included, at RocksDB's default compression gets LZ4 ({@link
 * Lz4Compression}).
 */
public final class ColumnFamilyOptionsFunction implements Function<String, ColumnFamilyOptions> {

    private final RocksDBResourceContainer resourceContainer;
    private final StateRegistry registry;
    @Nullable private final ColumnFamilyTuner tuner;
    private final boolean lz4;

    /** With {@code tuner} null and {@code lz4} false, exactly the stock options. */
    public ColumnFamilyOptionsFunction(
            RocksDBResourceContainer resourceContainer,
            StateRegistry registry,
            @Nullable ColumnFamilyTuner tuner,
            boolean lz4) {
        this.resourceContainer = resourceContainer;
        this.registry = registry;
        this.tuner = tuner;
        this.lz4 = lz4;
    }

    @Override
    public ColumnFamilyOptions apply(String stateName) {
        ColumnFamilyOptions options = resourceContainer.getColumnOptions();
        if (lz4) {
            Lz4Compression.applyIfDefault(options);
        }
        if (tuner != null) {
            StateRegistry.RegisteredState state = registry.get(stateName);
            tuner.tune(
                    stateName,
                    state == null ? null : state.kind(),
                    state == null ? null : state.keySerializer(),
                    state == null ? null : state.namespaceSerializer(),
                    options);
        }
        return options;
    }

    /** The column-family tuner, null when no tuning is switched on. */
    @Nullable
    public ColumnFamilyTuner tuner() {
        return tuner;
    }

    /** The backend's state registry (kind and serializers per state name). */
    public StateRegistry registry() {
        return registry;
    }
}
