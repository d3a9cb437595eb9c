/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.tuning.TunedBackends.Tuning;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.util.IOUtils;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink 1.20's {@code KeyedStateBackend#getKeys(List, N)} through Falcon: with the entries still in
 * the cache (dirty) and in hash memtables, it returns exactly the keys the stock backend returns
 * for the same writes, in the same order.
 */
class KeysOfSeveralStatesTest {

    private static final List<String> STATES = Arrays.asList("counts", "maps");

    @TempDir Path tmp;

    private MockEnvironment env;

    @BeforeEach
    void createEnvironment() {
        env = MockEnvironment.builder().build();
    }

    @AfterEach
    void closeEnvironment() {
        IOUtils.closeQuietly(env);
    }

    @ParameterizedTest
    @EnumSource(Tuning.class)
    void keysOfSeveralStatesMatchStock(Tuning tuning) throws Exception {
        List<Long> falcon = keysAfterWrites(TunedBackends.falcon(tuning, true, tmp), true);
        List<Long> stock = keysAfterWrites(TunedBackends.stock(true, tmp), false);
        assertThat(falcon).isEqualTo(stock);
        // Keys 0..99 have a count, 50..149 a map: each key once.
        assertThat(falcon).hasSize(150).doesNotHaveDuplicates();
    }

    private List<Long> keysAfterWrites(StateBackend backend, boolean expectFalcon)
            throws Exception {
        AbstractKeyedStateBackend<Long> keyed =
                TunedBackends.keyed(backend, env, Collections.emptyList());
        try {
            assertThat(keyed instanceof FalconKeyedStateBackend).isEqualTo(expectFalcon);
            ValueState<Long> counts =
                    keyed.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new ValueStateDescriptor<>("counts", LongSerializer.INSTANCE));
            MapState<String, Long> maps =
                    keyed.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new MapStateDescriptor<>(
                                    "maps", StringSerializer.INSTANCE, LongSerializer.INSTANCE));
            for (long key = 0; key < 150; key++) {
                keyed.setCurrentKey(key);
                if (key < 100) {
                    counts.update(key);
                }
                if (key >= 50) {
                    maps.put("k", key);
                }
            }
            try (Stream<Long> keys = keyed.getKeys(STATES, VoidNamespace.INSTANCE)) {
                return keys.collect(Collectors.toList());
            }
        } finally {
            keyed.dispose();
        }
    }
}
