/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.FalconStateBackendTest;
import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.configuration.Configuration;

/**
 * Flink's {@code StateBackendTestBase} (through {@link FalconStateBackendTest}, both checkpoint
 * modes) with both column-family tunings on: ValueState column families of fixed-length keys get
 * HashLinkList memtables, MapState column families the range filter, and every scan, snapshot,
 * restore and rescaling test must still pass.
 */
public class TunedFalconStateBackendTest extends FalconStateBackendTest {

    /** Both tunings on. */
    @Override
    protected Configuration falconConfig() {
        Configuration config = new Configuration();
        config.set(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE, "true");
        config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, true);
        return config;
    }

    @Override
    protected void checkSwitchedOn(FalconStateBackend tuned) {
        if (!tuned.isHashMemtableEnabled() || !tuned.isRangeFilterEnabled()) {
            throw new IllegalStateException("tuning not switched on: " + tuned);
        }
    }
}
