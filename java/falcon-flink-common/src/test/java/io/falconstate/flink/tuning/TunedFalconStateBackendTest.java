/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconOptions;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.FalconStateBackendTest;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.state.ConfigurableStateBackend;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Flink's {@code StateBackendTestBase} (through {@link FalconStateBackendTest}, both checkpoint
 * modes) with both column-family tunings on: ValueState column families of fixed-length keys get
 * HashLinkList memtables, MapState column families the range filter, and every scan, snapshot,
 * restore and rescaling test must still pass.
 */
public class TunedFalconStateBackendTest extends FalconStateBackendTest {

    /**
     * The base test's RocksDB settings with both tunings on. Declares no checked exception, so it
     * overrides the base method whether or not that one declares {@code IOException}.
     */
    @Override
    protected ConfigurableStateBackend getStateBackend() {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(incremental);
        rocksDb.setPriorityQueueStateType(
                EmbeddedRocksDBStateBackend.PriorityQueueStateType.ROCKSDB);
        try {
            rocksDb.setDbStoragePath(TEMP_FOLDER.newFolder().getAbsolutePath());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Configuration config = new Configuration();
        config.set(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE, "true");
        config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, true);
        FalconStateBackend tuned =
                new FalconStateBackend(rocksDb)
                        .configure(config, Thread.currentThread().getContextClassLoader());
        if (!tuned.isHashMemtableEnabled() || !tuned.isRangeFilterEnabled()) {
            throw new IllegalStateException("tuning not switched on: " + tuned);
        }
        return tuned;
    }
}
