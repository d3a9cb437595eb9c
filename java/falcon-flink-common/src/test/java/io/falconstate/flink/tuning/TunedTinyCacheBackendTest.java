/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.cache.TinyCacheBackendTest;
import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.FalconColumnFamilyAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link io.falconstate.flink.cache.TinyCacheBackendTest} with both column-family tunings on: the
 * cache's write-backs land in a HashLinkList memtable, and scans still see them. The same options
 * run Flink's own suite in {@link TunedTinyCacheFalconStateBackendTest}.
 */
public class TunedTinyCacheBackendTest extends TinyCacheBackendTest {

    @Override
    protected Configuration falconConfig() {
        return tuned(super.falconConfig());
    }

    /** Switches both column-family tunings on in {@code config}. */
    static Configuration tuned(Configuration config) {
        config.set(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE, "true");
        config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, true);
        return config;
    }

    @Override
    protected void checkSwitchedOn(FalconStateBackend backend) {
        checkCacheAndTuningOn(backend);
    }

    /** Fails unless the cache and both tunings are on in {@code backend}. */
    static void checkCacheAndTuningOn(FalconStateBackend backend) {
        if (!backend.isCacheEnabled()
                || !backend.isHashMemtableEnabled()
                || !backend.isRangeFilterEnabled()) {
            throw new IllegalStateException("cache or tuning not switched on: " + backend);
        }
    }

    /**
     * The suite above really runs write-backs into a hash column family: the state is tuned, the
     * evicted entries sit in its HashLinkList memtable, and {@code getKeys} (which flushes the
     * cache, then that memtable) still returns every key.
     */
    @Test
    public void testWriteBacksLandInTheHashMemtableAndScansSeeThem() throws Exception {
        CheckpointableKeyedStateBackend<Integer> backend =
                createKeyedBackend(IntSerializer.INSTANCE);
        try {
            ValueState<String> state = stringState(backend, "hashed");
            for (int key = 0; key < 100; key++) {
                backend.setCurrentKey(key);
                state.update("v" + key);
            }
            FalconKeyedStateBackend<Integer> falcon = (FalconKeyedStateBackend<Integer>) backend;
            HotStateCacheManager<Integer> cache = falcon.getHotStateCache();
            assertThat(cache).isNotNull();
            assertThat(falcon.getColumnFamilyTuner()).isNotNull();
            TuningProfile profile = falcon.getColumnFamilyTuner().profileOf("hashed");
            assertThat(profile).isNotNull();
            assertThat(profile.isHashMemtable()).isTrue();
            // 1-byte key group (128 key groups), int key (4 bytes), VoidNamespace (1 byte).
            assertThat(profile.prefixLength()).isEqualTo(6);
            RocksDBKeyedStateBackend<Integer> rocksDb = falcon.getRocksDBKeyedStateBackend();
            long inMemtable = FalconColumnFamilyAccess.activeMemtableEntries(rocksDb, "hashed");
            assertThat(cache.recordsWrittenBack()).isGreaterThan(90);
            assertThat(inMemtable)
                    .as("write-backs in the hash memtable before any scan")
                    .isGreaterThan(90);

            Set<Integer> keys;
            try (Stream<Integer> s = backend.getKeys("hashed", VoidNamespace.INSTANCE)) {
                keys = s.collect(Collectors.toCollection(TreeSet::new));
            }
            assertThat(keys).hasSize(100).first().isEqualTo(0);
            assertThat(FalconColumnFamilyAccess.activeMemtableEntries(rocksDb, "hashed"))
                    .as("getKeys flushed the hash memtable")
                    .isZero();
        } finally {
            backend.dispose();
        }
    }
}
