/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.budget.CacheBudgets;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.log.FalconLog;
import io.falconstate.flink.nativeaccess.CacheQuota;
import io.falconstate.flink.nativeaccess.CacheStats;
import io.falconstate.flink.nativeaccess.NativeHotStateCache;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.runtime.util.TestingTaskManagerRuntimeInfo;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The managed-memory budget (TaskManager → slot → subtask) on real keyed backends sharing one
 * slot's real {@code MemoryManager}: reservation, quotas as subtasks join and leave (with
 * rounding), the [FALCON] lines, eviction down to a shrunk quota, the dirty-byte cap and the
 * per-state metrics.
 */
class CacheBudgetTest {

    private static final long SLOT_MANAGED = 64L << 20;

    @TempDir Path tmp;

    private MockEnvironment env;

    @BeforeEach
    void setUp() {
        FalconLog.resetOnceGuardsForTesting();
        Configuration tm = new Configuration();
        tm.set(TaskManagerOptions.NUM_TASK_SLOTS, 2);
        env =
                MockEnvironment.builder()
                        .setManagedMemorySize(SLOT_MANAGED)
                        .setTaskName("Budget")
                        .setMaxParallelism(128)
                        .setParallelism(3)
                        .setSubtaskIndex(1)
                        .setTaskManagerRuntimeInfo(new TestingTaskManagerRuntimeInfo(tm))
                        .build();
    }

    @AfterEach
    void tearDown() throws Exception {
        FalconLog.resetOnceGuardsForTesting();
        env.close();
    }

    private FalconStateBackend backend(Configuration config) {
        config.set(RocksDBOptions.LOCAL_DIRECTORIES, tmp.toString());
        return new FalconStateBackend().configure(config, getClass().getClassLoader());
    }

    private static FalconKeyedStateBackend<Integer> create(
            FalconStateBackend backend, MockEnvironment env, double fraction, MetricGroup metrics)
            throws Exception {
        AbstractKeyedStateBackend<Integer> b =
                StateBackendCalls.keyedBackend(
                        backend,
                        env,
                        new JobID(),
                        "op",
                        IntSerializer.INSTANCE,
                        128,
                        new KeyGroupRange(0, 127),
                        env.getTaskKvStateRegistry(),
                        TtlTimeProvider.DEFAULT,
                        metrics,
                        Collections.emptyList(),
                        new CloseableRegistry(),
                        fraction);
        assertThat(b).isInstanceOf(FalconKeyedStateBackend.class);
        return (FalconKeyedStateBackend<Integer>) b;
    }

    private static ValueState<String> valueState(FalconKeyedStateBackend<Integer> b, String name)
            throws Exception {
        return b.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>(name, StringSerializer.INSTANCE));
    }

    @Test
    void logLinesHaveTheExactFormats() {
        assertThat(FalconLog.taskManagerCacheLine(4, 32L << 20, 0))
                .isEqualTo(
                        "[FALCON] configuring falcon cache: TaskManager has 4 slots, each slot can cache 32 mb");
        assertThat(FalconLog.taskManagerCacheLine(4, 32L << 20, 2500))
                .isEqualTo(
                        "[FALCON] configuring falcon cache: TaskManager has 4 slots, each slot can cache 32 mb (2500 states)");
        assertThat(FalconLog.subtaskCacheLine("Window(Agg)", 2, 4, 1, 3, 1L << 20, 0))
                .isEqualTo(
                        "[FALCON] subtask Window(Agg) (3/4)#1: slot has 3 keyed subtasks, this subtask can cache 1 mb");
        assertThat(FalconLog.subtaskCacheLine("Window(Agg)", 0, 1, 0, 1, 1000, 7))
                .isEqualTo(
                        "[FALCON] subtask Window(Agg) (1/1)#0: slot has 1 keyed subtasks, this subtask can cache 1000 bytes (7 states)");
        long charge = NativeHotStateCache.chargeFor(0, (int) CacheBudgets.TYPICAL_ENTRY_BYTES);
        assertThat(CacheBudgets.estimateStates(1L << 20, 0)).isEqualTo((1L << 20) / charge);
        assertThat(CacheBudgets.estimateStates(1L << 20, 5)).isEqualTo(5);
        assertThat(FalconLog.cachedStateLine("count", 1L << 20, 5))
                .isEqualTo("[FALCON] <count, VALUE> falcon cache enabled, 5 states (1 mb)");
    }

    @Test
    void slotBudgetIsReservedAndSharedBySubtasksByFraction() throws Exception {
        Configuration config = new Configuration();
        config.set(FalconOptions.CACHE_MANAGED_MEMORY_SHARE, 0.25);
        config.set(FalconOptions.CACHE_ENTRIES_PER_TASKMANAGER, 1001L); // 500 per slot (floor)
        FalconStateBackend backend = backend(config);
        long slotBytes = (long) Math.floor(SLOT_MANAGED * 0.25);
        long rocksBytes = (long) Math.floor(SLOT_MANAGED * 0.75);

        try (LogCapture log = new LogCapture("io.falconstate")) {
            FalconKeyedStateBackend<Integer> a =
                    create(backend, env, 1.0, new UnregisteredMetricsGroup());
            // RocksDB (1-a)·f and the cache a·f are both reserved from the slot.
            assertThat(SLOT_MANAGED - env.getMemoryManager().availableMemory())
                    .isEqualTo(rocksBytes + slotBytes);
            assertThat(a.getHotStateCache().quota())
                    .extracting(CacheQuota::bytes, CacheQuota::entries)
                    .containsExactly(slotBytes, 500L);

            FalconKeyedStateBackend<Integer> b =
                    create(backend, env, 0.5, new UnregisteredMetricsGroup());
            // Nothing more reserved: the slot's subtasks share the slot's resources.
            assertThat(SLOT_MANAGED - env.getMemoryManager().availableMemory())
                    .isEqualTo(rocksBytes + slotBytes);
            // Weights 1.0 and 0.5: 2/3 and 1/3, floored.
            assertThat(a.getHotStateCache().quota())
                    .extracting(CacheQuota::bytes, CacheQuota::entries)
                    .containsExactly((long) Math.floor(slotBytes * (1.0 / 1.5)), 333L);
            assertThat(b.getHotStateCache().quota())
                    .extracting(CacheQuota::bytes, CacheQuota::entries)
                    .containsExactly((long) Math.floor(slotBytes * (0.5 / 1.5)), 166L);
            valueState(b, "v");

            b.dispose();
            assertThat(a.getHotStateCache().quota())
                    .extracting(CacheQuota::bytes, CacheQuota::entries)
                    .containsExactly(slotBytes, 500L);
            valueState(a, "w");
            a.dispose();
            assertThat(env.getMemoryManager().availableMemory())
                    .as("every reservation is released when the slot's subtasks leave")
                    .isEqualTo(SLOT_MANAGED);

            assertThat(log.falconLines())
                    .filteredOn(l -> !l.contains("Falcon ") || !l.contains(" enabled (native"))
                    .containsExactly(
                            // RocksDB's (1-a)·f: Flink's block cache of it, in shards of 16 MB.
                            "INFO "
                                    + FalconLog.blockCacheLine(
                                            (long) ((3 - 0.5) * rocksBytes / 3), 2, 64),
                            "INFO " + FalconLog.taskManagerCacheLine(2, slotBytes, 500),
                            "INFO "
                                    + FalconLog.subtaskCacheLine(
                                            "Budget", 1, 3, 0, 1, slotBytes, 500),
                            "INFO "
                                    + FalconLog.subtaskCacheLine(
                                            "Budget",
                                            1,
                                            3,
                                            0,
                                            2,
                                            (long) Math.floor(slotBytes * (0.5 / 1.5)),
                                            166),
                            // The cache is on, so the hash memtable's default ('auto') is on.
                            "INFO " + FalconLog.hashMemtableLine("v", 6),
                            "INFO "
                                    + FalconLog.cachedStateLine(
                                            "v",
                                            (long) Math.floor(slotBytes * (0.5 / 1.5)),
                                            CacheBudgets.estimateStates(
                                                    (long) Math.floor(slotBytes * (0.5 / 1.5)),
                                                    166)),
                            "INFO " + FalconLog.hashMemtableLine("w", 6),
                            "INFO "
                                    + FalconLog.cachedStateLine(
                                            "w",
                                            slotBytes,
                                            CacheBudgets.estimateStates(slotBytes, 500)));
            // After the activation line and the slot's block-cache line.
            assertThat(log.falconLines().get(2))
                    .isEqualTo(
                            "INFO [FALCON] configuring falcon cache: TaskManager has 2 slots, each slot can cache 16 mb (500 states)");
        }
    }

    @Test
    void aCacheShrinksByEvictingWhenAnotherSubtaskJoinsTheSlot() throws Exception {
        MockEnvironment small = MockEnvironment.builder().setManagedMemorySize(8L << 20).build();
        try {
            Configuration config = new Configuration();
            config.set(FalconOptions.CACHE_MANAGED_MEMORY_SHARE, 0.125); // 1 MiB per slot
            config.set(FalconOptions.CACHE_MAX_DIRTY_BYTES, MemorySize.ZERO);
            FalconStateBackend backend = backend(config);
            FalconKeyedStateBackend<Integer> a =
                    create(backend, small, 1.0, new UnregisteredMetricsGroup());
            HotStateCacheManager<Integer> cache = a.getHotStateCache();
            ValueState<String> v = valueState(a, "v");
            String value = new String(new char[500]).replace('\0', 'x');
            for (int k = 0; k < 4000; k++) {
                a.setCurrentKey(k);
                v.update(value);
            }
            long full = cache.totalStats().bytes();
            assertThat(full).isLessThanOrEqualTo(1L << 20).isGreaterThan(3L << 18);

            FalconKeyedStateBackend<Integer> b =
                    create(backend, small, 1.0, new UnregisteredMetricsGroup());
            assertThat(cache.quota().bytes()).isEqualTo(1L << 19);
            cache.flushAll(); // what every snapshot does first
            assertThat(cache.totalStats().bytes()).isLessThanOrEqualTo(1L << 19);
            for (int k = 0; k < 4000; k++) {
                a.setCurrentKey(k);
                assertThat(v.value()).isEqualTo(value);
            }
            assertThat(cache.totalStats().bytes()).isLessThanOrEqualTo(1L << 19);
            b.dispose();
            a.dispose();
        } finally {
            small.close();
        }
    }

    @Test
    void dirtyBytesStayUnderTheCapSoACheckpointFlushesABoundedAmount() throws Exception {
        long cap = 16 << 10;
        Configuration config = new Configuration();
        config.set(FalconOptions.CACHE_SIZE_PER_SUBTASK, MemorySize.parse("4mb"));
        config.set(FalconOptions.CACHE_MAX_DIRTY_BYTES, new MemorySize(cap));
        FalconKeyedStateBackend<Integer> a =
                create(backend(config), env, 1.0, new UnregisteredMetricsGroup());
        Configuration uncapped = new Configuration();
        uncapped.set(FalconOptions.CACHE_SIZE_PER_SUBTASK, MemorySize.parse("4mb"));
        uncapped.set(FalconOptions.CACHE_MAX_DIRTY_BYTES, MemorySize.ZERO);
        FalconKeyedStateBackend<Integer> b =
                create(backend(uncapped), env, 1.0, new UnregisteredMetricsGroup());
        try {
            ValueState<String> va = valueState(a, "v");
            ValueState<String> vb = valueState(b, "v");
            String value = new String(new char[200]).replace('\0', 'y');
            for (int k = 0; k < 2000; k++) {
                a.setCurrentKey(k);
                va.update(value + k);
                b.setCurrentKey(k);
                vb.update(value + k);
                assertThat(a.getHotStateCache().totalStats().dirtyBytes()).isLessThanOrEqualTo(cap);
            }
            a.getHotStateCache().flushAll();
            b.getHotStateCache().flushAll();
            assertThat(a.getHotStateCache().lastFlushBytes()).isPositive().isLessThanOrEqualTo(cap);
            assertThat(b.getHotStateCache().lastFlushBytes()).isGreaterThan(10 * cap);
            // Nothing was lost on the way.
            for (int k = 0; k < 2000; k += 7) {
                a.setCurrentKey(k);
                assertThat(va.value()).isEqualTo(value + k);
            }
        } finally {
            a.dispose();
            b.dispose();
        }
    }

    @Test
    void aMeasuredWriteBackSetsTheDirtyCapFromTheTargetPause() throws Exception {
        long ceiling = 64 << 20;
        Configuration config = new Configuration();
        config.set(FalconOptions.CACHE_SIZE_PER_SUBTASK, MemorySize.parse("64mb"));
        config.set(FalconOptions.CACHE_MAX_DIRTY_BYTES, new MemorySize(ceiling));
        // 1 ms of write-back holds far less than 64 MiB at any rate this machine reaches.
        config.set(FalconOptions.CACHE_WRITE_BACK_PAUSE_TARGET, Duration.ofMillis(1));
        FalconKeyedStateBackend<Integer> a =
                create(backend(config), env, 1.0, new UnregisteredMetricsGroup());
        try {
            ValueState<String> v = valueState(a, "v");
            String value = new String(new char[1000]).replace('\0', 'z');
            assertThat(a.getHotStateCache().dirtyCapBytes()).isEqualTo(ceiling);
            for (int k = 0; k < 4000; k++) {
                a.setCurrentKey(k);
                v.update(value + k);
            }
            a.getHotStateCache().flushAll();
            long cap = a.getHotStateCache().dirtyCapBytes();
            assertThat(a.getHotStateCache().lastFlushBytes()).isGreaterThan(3L << 20);
            assertThat(cap).isLessThan(ceiling).isGreaterThanOrEqualTo(1L << 20);
            // The new cap holds for the writes that follow.
            for (int k = 0; k < 8000; k++) {
                a.setCurrentKey(k);
                v.update(value + (k + 1));
                assertThat(a.getHotStateCache().totalStats().dirtyBytes()).isLessThanOrEqualTo(cap);
            }
            for (int k = 0; k < 8000; k += 13) {
                a.setCurrentKey(k);
                assertThat(v.value()).isEqualTo(value + (k + 1));
            }
        } finally {
            a.dispose();
        }
    }

    @Test
    void everyCachedStateReportsItsMetrics() throws Exception {
        Configuration config = new Configuration();
        config.set(FalconOptions.CACHE_SIZE_PER_SUBTASK, MemorySize.parse("64kb"));
        config.set(FalconOptions.CACHE_ENTRIES_PER_SUBTASK, 4L);
        Map<String, Metric> metrics = new ConcurrentHashMap<>();
        FalconKeyedStateBackend<Integer> a =
                create(backend(config), env, 1.0, new CapturingGroup("", metrics));
        try {
            ValueState<String> v = valueState(a, "v");
            for (int round = 0; round < 3; round++) {
                for (int k = 0; k < 10; k++) {
                    a.setCurrentKey(k);
                    v.update("x" + k);
                    v.value();
                }
            }
            assertThat(metrics)
                    .containsKeys(
                            "falcon.cache.v.hits",
                            "falcon.cache.v.misses",
                            "falcon.cache.v.hitRatio",
                            "falcon.cache.v.evictions",
                            "falcon.cache.v.dirtyWriteBacks",
                            "falcon.cache.v.entries",
                            "falcon.cache.v.bytes",
                            "falcon.cache.v.bypassed",
                            "falcon.cache.flushDurationMs",
                            "falcon.cache.flushedBytes");
            a.getHotStateCache().flushAll(); // a snapshot refreshes the metrics
            CacheStats stats = a.getHotStateCache().stats("v");
            assertThat(gauge(metrics, "falcon.cache.v.hits"))
                    .isEqualTo(stats.hits() + stats.absentHits())
                    .isEqualTo(30L);
            assertThat(gauge(metrics, "falcon.cache.v.evictions")).isEqualTo(stats.evictions());
            assertThat((Long) gauge(metrics, "falcon.cache.v.evictions")).isPositive();
            assertThat((Long) gauge(metrics, "falcon.cache.v.dirtyWriteBacks")).isPositive();
            assertThat(gauge(metrics, "falcon.cache.v.entries")).isEqualTo(4L);
            assertThat((Long) gauge(metrics, "falcon.cache.v.bytes")).isPositive();
            assertThat(gauge(metrics, "falcon.cache.v.bypassed")).isEqualTo(0L);
            assertThat((Double) gauge(metrics, "falcon.cache.v.hitRatio")).isEqualTo(1.0);
            assertThat((Long) gauge(metrics, "falcon.cache.flushedBytes")).isPositive();
            // The whole cache: one state here, so its figures.
            CacheStats total = a.getHotStateCache().totalStats();
            assertThat(gauge(metrics, "falcon.cache.entries")).isEqualTo(4L);
            assertThat(gauge(metrics, "falcon.cache.bytes"))
                    .isEqualTo(stats.bytes())
                    .isEqualTo(total.bytes());
            // Charged = block + 24 bytes per entry for its index slot and sketch share
            // (HotStateCache::kEntryOverheadBytes): the allocators hold at least the blocks, and
            // here (a 64 KiB quota, about 20 KiB of index and sketch) less than the quota.
            assertThat((Long) gauge(metrics, "falcon.cache.allocatedBytes"))
                    .isEqualTo(total.allocatedBytes())
                    .isGreaterThanOrEqualTo(total.bytes() - total.entries() * 24L)
                    .isLessThanOrEqualTo((Long) gauge(metrics, "falcon.cache.quotaBytes"));
            // A report asks; the task thread answers at its next write.
            a.setCurrentKey(99);
            v.value();
            v.update("z");
            assertThat(gauge(metrics, "falcon.cache.v.misses"))
                    .isEqualTo(a.getHotStateCache().stats("v").misses())
                    .isEqualTo(1L);
        } finally {
            a.dispose();
        }
    }

    @Test
    void timerQueuesReportTheirMetrics() throws Exception {
        Map<String, Metric> metrics = new ConcurrentHashMap<>();
        FalconKeyedStateBackend<Integer> a =
                create(backend(new Configuration()), env, 1.0, new CapturingGroup("", metrics));
        try {
            KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Integer, Integer>> timers =
                    a.create(
                            "_timer_state/event_t",
                            new TimerSerializer<>(IntSerializer.INSTANCE, IntSerializer.INSTANCE));
            for (int i = 0; i < 30; i++) {
                timers.add(new TimerHeapInternalTimer<>(100L, i % 10, 0));
            }
            assertThat(gauge(metrics, "falcon.timers.skippedRegistrations")).isEqualTo(20L);
            assertThat(gauge(metrics, "falcon.timers.knownTimers")).isEqualTo(10L);
            timers.poll();
            assertThat(gauge(metrics, "falcon.timers.knownTimers")).isEqualTo(9L);
        } finally {
            a.dispose();
        }
    }

    private static Object gauge(Map<String, Metric> metrics, String name) {
        return ((Gauge<?>) metrics.get(name)).getValue();
    }

    /** Records gauges by their dotted path below the operator group. */
    private static final class CapturingGroup extends UnregisteredMetricsGroup {
        private final String prefix;
        private final Map<String, Metric> metrics;

        CapturingGroup(String prefix, Map<String, Metric> metrics) {
            this.prefix = prefix;
            this.metrics = metrics;
        }

        @Override
        public MetricGroup addGroup(String name) {
            return new CapturingGroup(prefix + name + ".", metrics);
        }

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            metrics.put(prefix + name, gauge);
            return gauge;
        }
    }
}
