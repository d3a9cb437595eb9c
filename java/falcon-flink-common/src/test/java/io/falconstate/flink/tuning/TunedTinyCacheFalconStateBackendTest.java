/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.cache.CachedBackends;
import io.falconstate.flink.cache.TinyCacheFalconStateBackendTest;

import org.apache.flink.configuration.Configuration;

/**
 * Flink's {@code StateBackendTestBase} (both checkpoint modes, through {@link
 * TinyCacheFalconStateBackendTest}) with both column-family tunings on and a hot-state cache of
 * {@value CachedBackends#TINY_CACHE_ENTRIES} entries: the writes of ValueStates with fixed-length
 * keys reach their HashLinkList memtables almost only through the cache's evictions and dirty
 * write-backs (the {@code WriteBackWriter} path, not Flink's own {@code RocksDBValueState} path),
 * and every scan, snapshot, restore and rescaling test must still pass. Falcon's own test of these
 * options: {@link TunedTinyCacheBackendTest}.
 */
public class TunedTinyCacheFalconStateBackendTest extends TinyCacheFalconStateBackendTest {

    @Override
    protected Configuration falconConfig() {
        return TunedTinyCacheBackendTest.tuned(super.falconConfig());
    }

    @Override
    protected void checkSwitchedOn(FalconStateBackend backend) {
        TunedTinyCacheBackendTest.checkCacheAndTuningOn(backend);
    }
}
