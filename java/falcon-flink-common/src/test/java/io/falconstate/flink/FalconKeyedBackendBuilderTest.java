/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.FalconKeyedBackendBuilder.Stage;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.nativeaccess.NativeLibrary;
import io.falconstate.flink.tuning.ColumnFamilyTuner;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.concurrent.FutureUtils;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A keyed backend build that fails at any step leaves nothing behind: the slot's managed memory
 * (RocksDB's shared cache and the hot-state cache's reservation) is all available again, the native
 * cache is closed, the tuner's bloom filters are released, and RocksDB's instance directory is
 * gone. The build restores a checkpoint holding a ValueState and a MapState with both tunings and
 * the cache on, so every resource the builder creates exists when it fails.
 */
class FalconKeyedBackendBuilderTest {

    private static final long SLOT_MANAGED = 64L << 20;
    private static final int MAX_PARALLELISM = 128;

    @TempDir Path tmp;

    private MockEnvironment env;
    private FalconKeyedBackendBuilder.StageListener originalListener;

    @BeforeAll
    static void nativeLibrary() {
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    @BeforeEach
    void setUp() {
        env = MockEnvironment.builder().setManagedMemorySize(SLOT_MANAGED).build();
        originalListener = FalconKeyedBackendBuilder.setStageListenerForTesting((s, c) -> {});
    }

    @AfterEach
    void tearDown() throws Exception {
        FalconKeyedBackendBuilder.setStageListenerForTesting(originalListener);
        env.close();
    }

    private FalconStateBackend backend() {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
        rocksDb.setDbStoragePath(tmp.resolve("db").toString());
        Configuration config = new Configuration();
        config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, true);
        FalconStateBackend backend =
                new FalconStateBackend(rocksDb).configure(config, getClass().getClassLoader());
        assertThat(backend.isCacheEnabled()).isTrue();
        assertThat(backend.isHashMemtableEnabled()).isTrue();
        return backend;
    }

    @SuppressWarnings("unchecked")
    private AbstractKeyedStateBackend<Long> create(Collection<KeyedStateHandle> restore)
            throws Exception {
        return (AbstractKeyedStateBackend<Long>)
                StateBackendCalls.keyedBackend(
                        backend(),
                        env,
                        new JobID(),
                        "builder-test (1/1)#0",
                        LongSerializer.INSTANCE,
                        MAX_PARALLELISM,
                        new KeyGroupRange(0, MAX_PARALLELISM - 1),
                        env.getTaskKvStateRegistry(),
                        TtlTimeProvider.DEFAULT,
                        new UnregisteredMetricsGroup(),
                        restore,
                        new CloseableRegistry(),
                        1.0);
    }

    /** A checkpoint with a tuned ValueState and a range-filtered MapState. */
    private KeyedStateHandle checkpoint() throws Exception {
        AbstractKeyedStateBackend<Long> kb = create(Collections.emptyList());
        try {
            ValueState<Long> value =
                    kb.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new ValueStateDescriptor<>("value", LongSerializer.INSTANCE));
            MapState<Long, Long> map =
                    kb.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new MapStateDescriptor<>(
                                    "map", LongSerializer.INSTANCE, LongSerializer.INSTANCE));
            for (long k = 0; k < 100; k++) {
                kb.setCurrentKey(k);
                value.update(k);
                map.put(k, k);
            }
            return FutureUtils.runIfNotDoneAndGet(
                            kb.snapshot(
                                    1L,
                                    1L,
                                    new MemCheckpointStreamFactory(16 << 20),
                                    CheckpointOptions.forCheckpointWithDefaultLocation()))
                    .getJobManagerOwnedSnapshot();
        } finally {
            kb.dispose();
        }
    }

    /** Instance directories RocksDB left under the storage path. */
    private List<Path> instanceDirectories() throws IOException {
        Path db = tmp.resolve("db");
        if (!Files.exists(db)) {
            return Collections.emptyList();
        }
        try (Stream<Path> files = Files.walk(db)) {
            return files.filter(p -> p.getFileName().toString().startsWith("job_"))
                    .collect(Collectors.toList());
        }
    }

    /** The checks below can fail: an open backend holds all of it, dispose releases all of it. */
    @Test
    void anOpenBackendHoldsWhatTheChecksLookFor() throws Exception {
        KeyedStateHandle checkpoint = checkpoint();
        Map<Stage, Object> created = new EnumMap<>(Stage.class);
        FalconKeyedBackendBuilder.setStageListenerForTesting(created::put);
        AbstractKeyedStateBackend<Long> kb =
                create(new ArrayList<>(Collections.singleton(checkpoint)));
        FalconKeyedBackendBuilder.setStageListenerForTesting((s, c) -> {});
        assertThat(created).containsOnlyKeys(Stage.values());
        ColumnFamilyTuner tuner = (ColumnFamilyTuner) created.get(Stage.TUNER_CREATED);
        HotStateCacheManager<?> cache = (HotStateCacheManager<?>) created.get(Stage.CACHE_CREATED);
        assertThat(env.getMemoryManager().availableMemory()).isLessThan(SLOT_MANAGED);
        assertThat(tuner.isClosed()).isFalse();
        assertThat(tuner.profileOf("map").tuned()).as("restored map range-filtered").isTrue();
        assertThat(cache.isReleased()).isFalse();
        assertThat(instanceDirectories()).hasSize(1);

        kb.dispose();
        assertReleased(tuner, cache);
    }

    @ParameterizedTest
    @EnumSource(Stage.class)
    void aBuildFailingAtAnyStepReleasesEverything(Stage failAt) throws Exception {
        KeyedStateHandle checkpoint = checkpoint();
        assertThat(env.getMemoryManager().availableMemory()).isEqualTo(SLOT_MANAGED);
        Map<Stage, Object> created = new EnumMap<>(Stage.class);
        FalconKeyedBackendBuilder.setStageListenerForTesting(
                (stage, resource) -> {
                    created.put(stage, resource);
                    if (stage == failAt) {
                        throw new IllegalStateException("injected failure at " + stage);
                    }
                });
        assertThatThrownBy(() -> create(new ArrayList<>(Collections.singleton(checkpoint))))
                .hasMessageContaining("injected failure at " + failAt);

        assertReleased(
                (ColumnFamilyTuner) created.get(Stage.TUNER_CREATED),
                (HotStateCacheManager<?>) created.get(Stage.CACHE_CREATED));
    }

    private void assertReleased(ColumnFamilyTuner tuner, HotStateCacheManager<?> cache)
            throws IOException {
        assertThat(env.getMemoryManager().availableMemory())
                .as("all managed memory of the slot available again")
                .isEqualTo(SLOT_MANAGED);
        if (tuner != null) {
            assertThat(tuner.isClosed()).as("tuner's filters released").isTrue();
        }
        if (cache != null) {
            assertThat(cache.isReleased()).as("native cache released").isTrue();
        }
        assertThat(instanceDirectories()).as("RocksDB's instance directory deleted").isEmpty();
    }
}
