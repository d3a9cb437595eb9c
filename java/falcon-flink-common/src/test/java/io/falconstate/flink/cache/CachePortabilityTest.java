/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.StateBackendCalls;
import io.falconstate.flink.nativeaccess.CacheStats;
import io.falconstate.flink.timers.TimerQueues;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.AbstractManagedMemoryStateBackend;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SavepointResources;
import org.apache.flink.runtime.state.SavepointSnapshotStrategy;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.SnapshotStrategyRunner;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.concurrent.FutureUtils;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.RunnableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Snapshots stay portable in both directions: state written under Falcon (with updates and deletes
 * still dirty in the cache when the snapshot is triggered) restores on the stock {@link
 * EmbeddedRocksDBStateBackend} with identical contents, and state written by the stock backend
 * restores under Falcon, for incremental and full checkpoints and canonical and native savepoints.
 */
class CachePortabilityTest {

    private static final int MAX_PARALLELISM = 128;
    private static final int KEYS = 1000;
    private static final ValueStateDescriptor<String> DESCRIPTOR =
            new ValueStateDescriptor<>("portable", StringSerializer.INSTANCE);

    enum SnapshotKind {
        INCREMENTAL_CHECKPOINT,
        FULL_CHECKPOINT,
        CANONICAL_SAVEPOINT,
        NATIVE_SAVEPOINT
    }

    @TempDir Path tmp;

    private Environment env;
    private long checkpointId;
    private final SharedStateRegistry sharedStateRegistry = new SharedStateRegistryImpl();

    @BeforeEach
    void createEnvironment() {
        env = new MockEnvironmentBuilder().setManagedMemorySize(64L << 20).build();
    }

    @AfterEach
    void closeEnvironment() throws Exception {
        ((AutoCloseable) env).close();
    }

    @ParameterizedTest
    @EnumSource(SnapshotKind.class)
    void dirtyCacheEntriesRestoreOnTheStockBackend(SnapshotKind kind) throws Exception {
        Map<Integer, String> expected = new HashMap<>();
        AbstractKeyedStateBackend<Integer> falcon = create(falcon(kind), Collections.emptyList());
        KeyedStateHandle handle;
        try {
            assertThat(falcon).isInstanceOf(FalconKeyedStateBackend.class);
            ValueState<String> state = state(falcon);
            write(falcon, state, 0, KEYS, "first", expected);
            // A checkpoint writes everything back; then change half of it again in the cache only.
            snapshot(falcon, SnapshotKind.INCREMENTAL_CHECKPOINT);
            write(falcon, state, 0, KEYS / 2, "second", expected);
            for (int key = KEYS / 2; key < KEYS / 2 + 100; key++) {
                falcon.setCurrentKey(key);
                state.clear();
                expected.remove(key);
            }
            CacheStats stats =
                    ((FalconKeyedStateBackend<Integer>) falcon)
                            .getHotStateCache()
                            .stats(DESCRIPTOR.getName());
            assertThat(stats.dirtyEntries())
                    .as("updates and deletes are only in the cache")
                    .isEqualTo(KEYS / 2 + 100);
            handle = snapshot(falcon, kind);
        } finally {
            falcon.dispose();
        }

        AbstractKeyedStateBackend<Integer> stock =
                create(stock(kind), Collections.singletonList(handle));
        try {
            assertThat(stock).isNotInstanceOf(FalconKeyedStateBackend.class);
            assertThat(read(stock, state(stock))).isEqualTo(expected);
        } finally {
            stock.dispose();
        }
    }

    /**
     * Write-back ahead of the barrier: with barriers every 1.2 s and writes all along, the cache
     * writes back in slices and starts memtable flushes before each barrier, and the held timers
     * are written back with it, while the reads keep seeing the latest values; the last snapshot
     * (written back ahead, then completed at the barrier) restores on stock RocksDB with exactly
     * the expected values and timers.
     */
    @ParameterizedTest
    @EnumSource(
            value = SnapshotKind.class,
            names = {"INCREMENTAL_CHECKPOINT", "FULL_CHECKPOINT"})
    void stateWrittenAheadOfBarriersRestoresOnTheStockBackend(SnapshotKind kind) throws Exception {
        Map<Integer, String> expected = new HashMap<>();
        AbstractKeyedStateBackend<Integer> falcon = create(falcon(kind), Collections.emptyList());
        KeyedStateHandle handle;
        Set<String> expectedTimers = new TreeSet<>();
        long preBarrier = 0;
        long timersAhead = 0;
        try {
            HotStateCacheManager<Integer> cache =
                    ((FalconKeyedStateBackend<Integer>) falcon).getHotStateCache();
            TimerQueues timerQueues = ((FalconKeyedStateBackend<Integer>) falcon).timerQueues();
            ValueState<String> state = state(falcon);
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Integer, Integer>> timers =
                    timers(falcon);
            long intervalNanos = 1_200_000_000L;
            int chunks = 24;
            for (int interval = 0; interval < 4; interval++) {
                long barrier = System.nanoTime();
                timersAhead -= timerQueues.writtenBack();
                snapshot(falcon, kind);
                timersAhead += timerQueues.writtenBack();
                preBarrier += cache.lastPreBarrierBytes();
                for (int chunk = 0; chunk < chunks; chunk++) {
                    sleepUntil(barrier + intervalNanos * chunk / chunks);
                    String round = interval + "." + chunk;
                    write(falcon, state, 0, KEYS, round, expected);
                    for (int key = chunk; key < KEYS; key += 7) {
                        falcon.setCurrentKey(key);
                        state.clear();
                        expected.remove(key);
                    }
                    falcon.setCurrentKey(chunk * 13);
                    assertThat(state.value()).isEqualTo(expected.get(chunk * 13));
                    // A window's timers: one per key and round, the round before's deleted.
                    long timestamp = interval * chunks + chunk;
                    for (int key = chunk; key < KEYS; key += 5) {
                        timers.add(new TimerHeapInternalTimer<>(timestamp, key, 0));
                        expectedTimers.add(timestamp + "/" + key);
                        if (timers.remove(new TimerHeapInternalTimer<>(timestamp - 1, key, 0))) {
                            expectedTimers.remove((timestamp - 1) + "/" + key);
                        }
                    }
                }
                sleepUntil(barrier + intervalNanos);
            }
            // Written at the barriers (between the write-backs before them and their snapshots) is
            // taken out above: what is left was written ahead of them.
            timersAhead = timerQueues.writtenBack() - timersAhead;
            handle = snapshot(falcon, kind);
            preBarrier += cache.lastPreBarrierBytes();
        } finally {
            falcon.dispose();
        }
        assertThat(preBarrier).as("bytes written back ahead of the barriers").isPositive();
        assertThat(timersAhead).as("timer changes written ahead of the barriers").isPositive();

        AbstractKeyedStateBackend<Integer> stock =
                create(stock(kind), Collections.singletonList(handle));
        try {
            assertThat(read(stock, state(stock))).isEqualTo(expected);
            Set<String> restoredTimers = new TreeSet<>();
            try (CloseableIterator<TimerHeapInternalTimer<Integer, Integer>> it =
                    timers(stock).iterator()) {
                while (it.hasNext()) {
                    TimerHeapInternalTimer<Integer, Integer> t = it.next();
                    restoredTimers.add(t.getTimestamp() + "/" + t.getKey());
                }
            }
            assertThat(restoredTimers).isEqualTo(expectedTimers);
        } finally {
            stock.dispose();
        }
    }

    private static KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Integer, Integer>> timers(
            AbstractKeyedStateBackend<Integer> backend) {
        return backend.create(
                "_timer_state/event_portable",
                new TimerSerializer<>(IntSerializer.INSTANCE, IntSerializer.INSTANCE));
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long wait;
        while ((wait = nanoTime - System.nanoTime()) > 0) {
            Thread.sleep(Math.max(1, wait / 1_000_000));
        }
    }

    @ParameterizedTest
    @EnumSource(SnapshotKind.class)
    void stockStateRestoresUnderFalconAndBack(SnapshotKind kind) throws Exception {
        Map<Integer, String> expected = new HashMap<>();
        AbstractKeyedStateBackend<Integer> stock = create(stock(kind), Collections.emptyList());
        KeyedStateHandle handle;
        try {
            write(stock, state(stock), 0, KEYS, "stock", expected);
            handle = snapshot(stock, kind);
        } finally {
            stock.dispose();
        }

        AbstractKeyedStateBackend<Integer> falcon =
                create(falcon(kind), Collections.singletonList(handle));
        try {
            assertThat(falcon).isInstanceOf(FalconKeyedStateBackend.class);
            ValueState<String> state = state(falcon);
            assertThat(read(falcon, state)).isEqualTo(expected);
            // Read again: now from the cache.
            assertThat(read(falcon, state)).isEqualTo(expected);
            write(falcon, state, KEYS - 10, KEYS + 10, "falcon", expected);
            handle = snapshot(falcon, kind);
        } finally {
            falcon.dispose();
        }

        AbstractKeyedStateBackend<Integer> stockAgain =
                create(stock(kind), Collections.singletonList(handle));
        try {
            assertThat(read(stockAgain, state(stockAgain))).isEqualTo(expected);
        } finally {
            stockAgain.dispose();
        }
    }

    // --- helpers ---

    private EmbeddedRocksDBStateBackend rocksDb(SnapshotKind kind) {
        EmbeddedRocksDBStateBackend rocksDb =
                new EmbeddedRocksDBStateBackend(kind == SnapshotKind.INCREMENTAL_CHECKPOINT);
        rocksDb.setDbStoragePath(tmp.resolve("db").toString());
        return rocksDb;
    }

    private AbstractManagedMemoryStateBackend stock(SnapshotKind kind) {
        return rocksDb(kind);
    }

    private AbstractManagedMemoryStateBackend falcon(SnapshotKind kind) {
        FalconStateBackend backend =
                new FalconStateBackend(rocksDb(kind))
                        .configure(
                                CachedBackends.defaultCache(new Configuration()),
                                Thread.currentThread().getContextClassLoader());
        assertThat(backend.isCacheEnabled()).isTrue();
        return backend;
    }

    private AbstractKeyedStateBackend<Integer> create(
            AbstractManagedMemoryStateBackend backend, Collection<KeyedStateHandle> handles)
            throws Exception {
        return StateBackendCalls.keyedBackend(
                backend,
                env,
                new JobID(),
                "portability-test",
                IntSerializer.INSTANCE,
                MAX_PARALLELISM,
                new KeyGroupRange(0, MAX_PARALLELISM - 1),
                env.getTaskKvStateRegistry(),
                TtlTimeProvider.DEFAULT,
                new UnregisteredMetricsGroup(),
                handles,
                new CloseableRegistry(),
                1.0);
    }

    private static ValueState<String> state(AbstractKeyedStateBackend<Integer> backend)
            throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DESCRIPTOR);
    }

    private static void write(
            AbstractKeyedStateBackend<Integer> backend,
            ValueState<String> state,
            int from,
            int to,
            String prefix,
            Map<Integer, String> expected)
            throws Exception {
        for (int key = from; key < to; key++) {
            backend.setCurrentKey(key);
            state.update(prefix + "-" + key);
            expected.put(key, prefix + "-" + key);
        }
    }

    private static Map<Integer, String> read(
            AbstractKeyedStateBackend<Integer> backend, ValueState<String> state) throws Exception {
        Map<Integer, String> values = new HashMap<>();
        for (int key = 0; key < KEYS + 20; key++) {
            backend.setCurrentKey(key);
            String value = state.value();
            if (value != null) {
                values.put(key, value);
            }
        }
        return values;
    }

    private KeyedStateHandle snapshot(AbstractKeyedStateBackend<Integer> backend, SnapshotKind kind)
            throws Exception {
        MemCheckpointStreamFactory streams = new MemCheckpointStreamFactory(64 << 20);
        long id = ++checkpointId;
        RunnableFuture<SnapshotResult<KeyedStateHandle>> future;
        switch (kind) {
            case CANONICAL_SAVEPOINT:
                // What StreamOperatorStateHandler does for a canonical savepoint.
                SavepointResources<Integer> resources = backend.savepoint();
                future =
                        new SnapshotStrategyRunner<>(
                                        "canonical savepoint",
                                        new SavepointSnapshotStrategy<>(
                                                resources.getSnapshotResources()),
                                        new CloseableRegistry(),
                                        resources.getPreferredSnapshotExecutionType())
                                .snapshot(
                                        id,
                                        id,
                                        streams,
                                        savepointOptions(SavepointFormatType.CANONICAL));
                break;
            case NATIVE_SAVEPOINT:
                future =
                        backend.snapshot(
                                id, id, streams, savepointOptions(SavepointFormatType.NATIVE));
                break;
            default:
                future =
                        backend.snapshot(
                                id,
                                id,
                                streams,
                                CheckpointOptions.forCheckpointWithDefaultLocation());
        }
        SnapshotResult<KeyedStateHandle> result = FutureUtils.runIfNotDoneAndGet(future);
        KeyedStateHandle handle = result.getJobManagerOwnedSnapshot();
        assertThat(handle).isNotNull();
        // As the checkpoint coordinator does: an incremental snapshot after a restore refers to
        // files it restored through placeholders that the shared-state registry resolves.
        handle.registerSharedStates(sharedStateRegistry, id);
        return handle;
    }

    private static CheckpointOptions savepointOptions(SavepointFormatType format) {
        return new CheckpointOptions(
                SavepointType.savepoint(format), CheckpointStorageLocationReference.getDefault());
    }
}
