/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TinyCacheBackendTest} with a self-switching threshold no window reaches: every cached
 * ValueState and MapState leaves the cache for RocksDB after a few dozen operations and comes back
 * for a trial a few dozen later. The same options run Flink's own suite in {@link
 * SelfSwitchingFalconStateBackendTest}.
 */
public class SelfSwitchingBackendTest extends TinyCacheBackendTest {

    static final int WINDOW = 16;
    static final long RETRY = 40;

    @Override
    protected Configuration falconConfig() {
        return selfSwitching(super.falconConfig());
    }

    /** Adds the self-switching options to {@code config}. */
    static Configuration selfSwitching(Configuration config) {
        config.set(FalconOptions.CACHE_BYPASS_HIT_RATIO, 0.99);
        config.set(FalconOptions.CACHE_MAP_STATE_BYPASS_HIT_RATIO, 0.99);
        config.set(FalconOptions.CACHE_SWITCH_WINDOW, WINDOW);
        config.set(FalconOptions.CACHE_SWITCH_RETRY_OPERATIONS, RETRY);
        return config;
    }

    /** Replaces the parent's eviction count: here the state spends part of the time direct. */
    @Override
    @Test
    public void testTinyCacheEvictsAndWritesBack() throws Exception {
        CheckpointableKeyedStateBackend<Integer> backend =
                createKeyedBackend(IntSerializer.INSTANCE);
        try {
            ValueState<String> state = stringState(backend, "switching");
            for (int round = 0; round < 3; round++) {
                for (int key = 0; key < 200; key++) {
                    backend.setCurrentKey(key);
                    state.update("v" + key + "-" + round);
                }
                for (int key = 0; key < 200; key++) {
                    backend.setCurrentKey(key);
                    assertThat(state.value()).isEqualTo("v" + key + "-" + round);
                }
            }
            HotStateCacheManager<Integer> cache =
                    ((FalconKeyedStateBackend<Integer>) backend).getHotStateCache();
            assertThat(cache.cacheSwitchedOff("switching")).isGreaterThan(2);
            assertThat(cache.directOperations("switching")).isPositive();
            assertThat(cache.stats("switching").dirtyWriteBacks()).isPositive();
        } finally {
            backend.dispose();
        }
    }

    /**
     * Updates while direct make the filter stale: it is rebuilt when the state is cached again, and
     * still never answers "absent" for a key that was written (the test's value checks). After the
     * restore the state's trials have failed so often that the never-written reads all go direct.
     */
    @Override
    protected void checkNeverWrittenReads(
            WrittenKeyFilter filter, long atLeast, boolean afterUpdates) {
        if (afterUpdates) {
            assertThat(filter.builds()).isGreaterThan(1);
            assertThat(filter.knownAbsentReads()).isPositive();
        }
    }

    /** A map written while cached, read while direct and the other way round: nothing lost. */
    @Test
    public void testMapStateSurvivesSwitching() throws Exception {
        CheckpointableKeyedStateBackend<Integer> backend =
                createKeyedBackend(IntSerializer.INSTANCE);
        try {
            MapState<Integer, String> state =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new MapStateDescriptor<>(
                                    "switching-map",
                                    IntSerializer.INSTANCE,
                                    StringSerializer.INSTANCE));
            for (int round = 0; round < 4; round++) {
                for (int key = 0; key < 50; key++) {
                    backend.setCurrentKey(key);
                    state.put(round, "r" + round + "k" + key);
                    if (round > 0) {
                        state.remove(round - 1);
                    }
                }
                for (int key = 0; key < 50; key++) {
                    backend.setCurrentKey(key);
                    assertThat(state.get(round)).isEqualTo("r" + round + "k" + key);
                    assertThat(state.contains(round - 1)).isFalse();
                    int entries = 0;
                    for (java.util.Map.Entry<Integer, String> e : state.entries()) {
                        assertThat(e.getKey()).isEqualTo(round);
                        entries++;
                    }
                    assertThat(entries).isEqualTo(1);
                }
            }
            HotStateCacheManager<Integer> cache =
                    ((FalconKeyedStateBackend<Integer>) backend).getHotStateCache();
            assertThat(cache.cacheSwitchedOff("switching-map")).isGreaterThan(2);
        } finally {
            backend.dispose();
        }
    }
}
