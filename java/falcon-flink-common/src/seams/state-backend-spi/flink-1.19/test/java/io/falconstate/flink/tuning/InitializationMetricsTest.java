/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.tuning.TunedBackends.SnapshotKind;
import io.falconstate.flink.tuning.TunedBackends.Tuning;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.IOUtils;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink 1.19's initialization metrics reach the task through Falcon as through the stock backend: a
 * restore from an incremental checkpoint reports the same metrics (the download time of the state
 * files) to the parameters' {@code CustomInitializationMetrics}.
 */
class InitializationMetricsTest {

    private static final int MAX_PARALLELISM = 128;

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

    @Test
    void aRestoreReportsTheStockInitializationMetrics() throws Exception {
        Set<String> stock = metricsOfARestore(TunedBackends.stock(true, tmp), false);
        Set<String> falcon =
                metricsOfARestore(TunedBackends.falcon(Tuning.DEFAULTS, true, tmp), true);
        assertThat(stock).as("the stock backend reports restore metrics").isNotEmpty();
        assertThat(falcon).isEqualTo(stock);
    }

    private Set<String> metricsOfARestore(StateBackend backend, boolean expectFalcon)
            throws Exception {
        KeyedStateHandle checkpoint;
        AbstractKeyedStateBackend<Long> writer =
                TunedBackends.keyed(backend, env, Collections.emptyList());
        try {
            ValueState<Long> counts = counts(writer);
            for (long key = 0; key < 100; key++) {
                writer.setCurrentKey(key);
                counts.update(key);
            }
            checkpoint = new TunedBackends.Snapshots().take(writer, SnapshotKind.CHECKPOINT);
        } finally {
            writer.dispose();
        }
        Set<String> reported = new TreeSet<>();
        AbstractKeyedStateBackend<Long> restored =
                (AbstractKeyedStateBackend<Long>)
                        backend.createKeyedStateBackend(
                                new KeyedStateBackendParametersImpl<>(
                                        env,
                                        new JobID(),
                                        "metrics (1/1)#0",
                                        LongSerializer.INSTANCE,
                                        MAX_PARALLELISM,
                                        new KeyGroupRange(0, MAX_PARALLELISM - 1),
                                        env.getTaskKvStateRegistry(),
                                        TtlTimeProvider.DEFAULT,
                                        new UnregisteredMetricsGroup(),
                                        (name, value) -> reported.add(name),
                                        TunedBackends.from(checkpoint),
                                        new CloseableRegistry(),
                                        1.0));
        try {
            assertThat(restored instanceof FalconKeyedStateBackend).isEqualTo(expectFalcon);
            restored.setCurrentKey(42L);
            assertThat(counts(restored).value()).isEqualTo(42L);
        } finally {
            restored.dispose();
        }
        return reported;
    }

    private static ValueState<Long> counts(AbstractKeyedStateBackend<Long> keyed) throws Exception {
        return keyed.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>("counts", LongSerializer.INSTANCE));
    }
}
