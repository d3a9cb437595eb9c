/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.FalconStateBackendBase;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.sstmerge.RocksDBManualCompactionConfig;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.UncompressedStreamCompressionDecorator;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Parity of the settings Flink 1.20's stock backend sets on its keyed builder, which leave no trace
 * in the built backend until a restore or a rescaling needs them: the priority-queue config,
 * ingest-DB restore mode, asynchronous compaction after a rescaling restore, delete-files-in-range
 * on rescaling, the IO executor and the manual compaction config. Falcon's builder, made by the
 * same code that builds Falcon's keyed backends, must carry what the stock backend resolved from
 * the same configuration.
 */
class StockBuilderSettingsParityTest {

    @TempDir Path tmp;

    @ParameterizedTest(name = "configured: {0}")
    @ValueSource(booleans = {false, true})
    void falconsBuilderCarriesWhatTheStockBackendResolved(boolean configured) throws Exception {
        Configuration config = new Configuration();
        if (configured) {
            config.setString("state.backend.rocksdb.timer-service.cache-size", "64");
            config.setString("state.backend.rocksdb.use-ingest-db-restore-mode", "true");
            config.setString(
                    "state.backend.rocksdb.incremental-restore-async-compact-after-rescale",
                    "true");
            config.setString("state.backend.rocksdb.rescaling.use-delete-files-in-range", "true");
            config.setString("state.backend.rocksdb.manual-compaction.min-interval", "2 min");
            config.setString(
                    "state.backend.rocksdb.manual-compaction.max-parallel-compactions", "3");
        }
        ClassLoader classLoader = getClass().getClassLoader();
        EmbeddedRocksDBStateBackend stock =
                new EmbeddedRocksDBStateBackend().configure(config, classLoader);
        FalconStateBackend falcon = new FalconStateBackend().configure(config, classLoader);

        Map<String, Object> expected = new TreeMap<>();
        RocksDBPriorityQueueConfig stockQueues =
                (RocksDBPriorityQueueConfig) field(stock, "priorityQueueConfig");
        expected.put("timerSetCacheSize", stockQueues.getRocksDBPriorityQueueSetCacheSize());
        expected.put("timerType", stock.getPriorityQueueStateType());
        expected.put("ingestDbRestore", stock.getUseIngestDbRestoreMode());
        expected.put(
                "asyncCompactAfterRescale", stock.getIncrementalRestoreAsyncCompactAfterRescale());
        expected.put("deleteFilesInRange", stock.isRescalingUseDeleteFilesInRange());
        RocksDBManualCompactionConfig stockCompaction =
                (RocksDBManualCompactionConfig) field(stock, "manualCompactionConfig");
        expected.put(
                "manualCompaction",
                (stockCompaction == null
                                ? RocksDBManualCompactionConfig.getDefault()
                                : stockCompaction)
                        .toString());
        expected.put("ioExecutor", true);

        Map<String, Object> actual;
        try (MockEnvironment env = MockEnvironment.builder().build()) {
            FalconStockBuilderSettings settings =
                    (FalconStockBuilderSettings)
                            field(falcon, FalconStateBackendBase.class, "stockBuilderSettings");
            File instance = tmp.resolve("instance").toFile();
            RocksDBKeyedStateBackendBuilder<Integer> builder =
                    settings.newBuilder(
                            "parity",
                            classLoader,
                            instance,
                            new RocksDBResourceContainer(),
                            name -> null,
                            env.getTaskKvStateRegistry(),
                            IntSerializer.INSTANCE,
                            128,
                            new KeyGroupRange(0, 127),
                            new ExecutionConfig(),
                            env.getTaskStateManager().createLocalRecoveryConfig(),
                            TtlTimeProvider.DEFAULT,
                            LatencyTrackingStateConfig.disabled(),
                            new UnregisteredMetricsGroup(),
                            Collections.emptyList(),
                            UncompressedStreamCompressionDecorator.INSTANCE,
                            new CloseableRegistry(),
                            falcon.getRocksDBStateBackend(),
                            env);
            RocksDBPriorityQueueConfig queues =
                    (RocksDBPriorityQueueConfig) field(builder, "priorityQueueConfig");
            actual = new TreeMap<>();
            actual.put("timerSetCacheSize", queues.getRocksDBPriorityQueueSetCacheSize());
            actual.put("timerType", queues.getPriorityQueueStateType());
            actual.put("ingestDbRestore", field(builder, "useIngestDbRestoreMode"));
            actual.put(
                    "asyncCompactAfterRescale",
                    field(builder, "incrementalRestoreAsyncCompactAfterRescale"));
            actual.put("deleteFilesInRange", field(builder, "rescalingUseDeleteFilesInRange"));
            actual.put("manualCompaction", field(builder, "manualCompactionConfig").toString());
            actual.put("ioExecutor", field(builder, "ioExecutor") != null);
        }
        assertThat(actual).isEqualTo(expected);
        if (configured) { // the configuration took effect, so equal is not trivially equal
            assertThat(expected)
                    .containsEntry("timerSetCacheSize", 64)
                    .containsEntry("ingestDbRestore", true)
                    .containsEntry("asyncCompactAfterRescale", true)
                    .containsEntry("deleteFilesInRange", true);
            assertThat((String) expected.get("manualCompaction"))
                    .isNotEqualTo(RocksDBManualCompactionConfig.getDefault().toString());
        }
    }

    private static Object field(Object target, String name) throws Exception {
        return field(target, target.getClass(), name);
    }

    private static Object field(Object target, Class<?> declaring, String name) throws Exception {
        Field field = declaring.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
    }
}
