/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.StateBackendCalls;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.log.FalconLog;
import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.FalconColumnFamilyAccess;
import org.apache.flink.contrib.streaming.state.TuningTestAccess;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.streaming.api.operators.StreamOperatorStateHandler;
import org.apache.flink.util.concurrent.FutureUtils;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tuning through Falcon's keyed backend on Flink's RocksDB backend: the per-state log lines, the
 * flush before whole-column-family scans of hash column families (with data in the memtable), map
 * operations on the range filter, and a canonical savepoint that the stock backend restores.
 */
class TunedKeyedBackendTest {

    private static final int MAX_PARALLELISM = 128;
    private static final int KEYS = 300;

    @TempDir Path tmp;

    private final List<String> logLines = new CopyOnWriteArrayList<>();
    private Logger logger;
    private AbstractAppender appender;
    private MockEnvironment env;

    @BeforeAll
    static void nativeLibrary() {
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    @BeforeEach
    void setUp() {
        env = MockEnvironment.builder().build();
        logger = (Logger) LogManager.getLogger(FalconLog.LOG.getName());
        appender =
                new AbstractAppender(
                        "tuned-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        logLines.add(event.getMessage().getFormattedMessage());
                    }
                };
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void tearDown() throws Exception {
        logger.removeAppender(appender);
        appender.stop();
        env.close();
    }

    private FalconStateBackend tunedBackend() {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
        rocksDb.setPriorityQueueStateType(
                EmbeddedRocksDBStateBackend.PriorityQueueStateType.ROCKSDB);
        rocksDb.setDbStoragePath(tmp.resolve("db-" + UUID.randomUUID()).toString());
        Configuration config = new Configuration();
        config.set(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE, "true");
        config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, true);
        // Memtable contents are this test's subject: values must reach RocksDB at once.
        config.set(FalconOptions.CACHE_ENABLED, false);
        FalconStateBackend backend =
                new FalconStateBackend(rocksDb).configure(config, getClass().getClassLoader());
        assertThat(backend.isHashMemtableEnabled()).isTrue();
        assertThat(backend.isRangeFilterEnabled()).isTrue();
        return backend;
    }

    private AbstractKeyedStateBackend<Integer> keyedBackend(
            StateBackend backend, Collection<KeyedStateHandle> restore) throws Exception {
        return (AbstractKeyedStateBackend<Integer>)
                StateBackendCalls.keyedBackend(
                        backend,
                        env,
                        new JobID(),
                        "tuned-operator (1/1)#0",
                        IntSerializer.INSTANCE,
                        MAX_PARALLELISM,
                        new KeyGroupRange(0, MAX_PARALLELISM - 1),
                        env.getTaskKvStateRegistry(),
                        TtlTimeProvider.DEFAULT,
                        new UnregisteredMetricsGroup(),
                        restore,
                        new CloseableRegistry(),
                        1.0);
    }

    private static final ValueStateDescriptor<Long> ACC =
            new ValueStateDescriptor<>("accState", LongSerializer.INSTANCE);
    private static final MapStateDescriptor<Long, String> LEFT =
            new MapStateDescriptor<>(
                    "left-records", LongSerializer.INSTANCE, StringSerializer.INSTANCE);

    private static ValueState<Long> acc(AbstractKeyedStateBackend<Integer> kb) throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, ACC);
    }

    private static MapState<Long, String> left(AbstractKeyedStateBackend<Integer> kb)
            throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, LEFT);
    }

    private static void write(AbstractKeyedStateBackend<Integer> kb) throws Exception {
        ValueState<Long> acc = acc(kb);
        MapState<Long, String> left = left(kb);
        for (int k = 0; k < KEYS; k++) {
            kb.setCurrentKey(k);
            acc.update(k * 10L);
            if (k % 3 == 0) {
                for (long u = 0; u < 4; u++) {
                    left.put(u, "r" + k + "/" + u);
                }
            }
        }
    }

    private static void verify(AbstractKeyedStateBackend<Integer> kb) throws Exception {
        ValueState<Long> acc = acc(kb);
        MapState<Long, String> left = left(kb);
        for (int k = 0; k < KEYS + 20; k++) {
            kb.setCurrentKey(k);
            assertThat(acc.value()).as("acc of %s", k).isEqualTo(k < KEYS ? k * 10L : null);
            boolean hasMap = k < KEYS && k % 3 == 0;
            assertThat(left.isEmpty()).as("map of %s empty", k).isEqualTo(!hasMap);
            assertThat(left.contains(2L)).isEqualTo(hasMap);
            assertThat(left.contains(7L)).isFalse();
            assertThat(left.get(7L)).isNull();
            if (hasMap) {
                assertThat(left.get(3L)).isEqualTo("r" + k + "/3");
                List<Long> userKeys = new ArrayList<>();
                left.keys().forEach(userKeys::add);
                assertThat(userKeys).containsExactly(0L, 1L, 2L, 3L);
            }
        }
    }

    /** The synchronous phase of a canonical savepoint; run the future for the asynchronous one. */
    private static RunnableFuture<SnapshotResult<KeyedStateHandle>> startCanonicalSavepoint(
            AbstractKeyedStateBackend<Integer> kb) throws Exception {
        return StreamOperatorStateHandler.prepareCanonicalSavepoint(kb, new CloseableRegistry())
                .snapshot(
                        1L,
                        1L,
                        new MemCheckpointStreamFactory(64 << 20),
                        new CheckpointOptions(
                                SavepointType.savepoint(SavepointFormatType.CANONICAL),
                                CheckpointStorageLocationReference.getDefault()));
    }

    private static Set<Integer> keysOf(Stream<Integer> keys) {
        try (Stream<Integer> s = keys) {
            return s.collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void statesAreTunedLoggedAndScansSeeMemtableData() throws Exception {
        AbstractKeyedStateBackend<Integer> kb =
                keyedBackend(tunedBackend(), Collections.emptyList());
        try {
            assertThat(kb).isInstanceOf(FalconKeyedStateBackend.class);
            write(kb);
            // Int key (4) + VoidNamespace (1) + 1 key-group byte.
            assertThat(logLines)
                    .contains(
                            "[FALCON] accState is valueState, use HashLinkList as memTable structure (prefix 6 bytes)",
                            "[FALCON] left-records is map, use range filter (prefix 6 bytes)");

            FalconKeyedStateBackend<Integer> falcon = (FalconKeyedStateBackend<Integer>) kb;
            assertThat(
                            FalconColumnFamilyAccess.activeMemtableEntries(
                                    falcon.getRocksDBKeyedStateBackend(), "accState"))
                    .as(
                            TuningTestAccess.describe(
                                            falcon.getRocksDBKeyedStateBackend(), "accState")
                                    + " / "
                                    + TuningTestAccess.describe(
                                            falcon.getRocksDBKeyedStateBackend(), "left-records"))
                    .isEqualTo(KEYS);
            // Without Falcon's flush, Flink's own getKeys misses the memtable of a hash CF.
            assertThat(
                            keysOf(
                                    falcon.getRocksDBKeyedStateBackend()
                                            .getKeys("accState", VoidNamespace.INSTANCE)))
                    .hasSizeLessThan(KEYS);
            // Through Falcon: complete.
            Set<Integer> expected = new TreeSet<>();
            for (int k = 0; k < KEYS; k++) {
                expected.add(k);
            }
            assertThat(keysOf(kb.getKeys("accState", VoidNamespace.INSTANCE))).isEqualTo(expected);
            assertThat(
                            FalconColumnFamilyAccess.activeMemtableEntries(
                                    falcon.getRocksDBKeyedStateBackend(), "accState"))
                    .isZero();

            // More memtable data, then the other scan paths.
            ValueState<Long> acc = acc(kb);
            for (int k = KEYS; k < KEYS + 10; k++) {
                kb.setCurrentKey(k);
                acc.update(1L);
                expected.add(k);
            }
            assertThat(kb.getKeysAndNamespaces("accState").count()).isEqualTo(KEYS + 10);
            List<Integer> applied = new ArrayList<>();
            kb.applyToAllKeys(
                    VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE,
                    ACC,
                    (key, state) -> applied.add(key));
            assertThat(new TreeSet<>(applied)).isEqualTo(expected);
            for (int k = KEYS; k < KEYS + 10; k++) {
                kb.setCurrentKey(k);
                acc.clear();
            }
            assertThat(kb.numKeyValueStateEntries()).isEqualTo(KEYS + (KEYS / 3) * 4);
            verify(kb);
        } finally {
            kb.dispose();
        }
    }

    /** Every RocksDB OPTIONS file written under {@code dir}, newest last by name. */
    private static List<Path> optionsFiles(Path dir) throws Exception {
        try (Stream<Path> files = java.nio.file.Files.walk(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /** The lines of one column family's section of a RocksDB OPTIONS file. */
    private static List<String> cfOptions(Path optionsFile, String cf) throws Exception {
        List<String> section = new ArrayList<>();
        boolean in = false;
        for (String line : java.nio.file.Files.readAllLines(optionsFile)) {
            if (line.startsWith("[")) {
                in = line.equals("[CFOptions \"" + cf + "\"]");
            } else if (in) {
                section.add(line.trim());
            }
        }
        return section;
    }

    /**
     * Restored column families are created before any state registers; Falcon reads the kind and
     * serializers from the checkpoint's meta data and tunes them like new ones. Checked in the
     * OPTIONS file RocksDB itself writes for the restored DB.
     */
    @Test
    void incrementalCheckpointRestoresIntoTunedColumnFamilies() throws Exception {
        AbstractKeyedStateBackend<Integer> kb =
                keyedBackend(tunedBackend(), Collections.emptyList());
        KeyedStateHandle checkpoint;
        try {
            write(kb);
            RunnableFuture<SnapshotResult<KeyedStateHandle>> future =
                    kb.snapshot(
                            1L,
                            1L,
                            new MemCheckpointStreamFactory(64 << 20),
                            CheckpointOptions.forCheckpointWithDefaultLocation());
            checkpoint = FutureUtils.runIfNotDoneAndGet(future).getJobManagerOwnedSnapshot();
            assertThat(checkpoint)
                    .isInstanceOf(
                            org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle.class);
        } finally {
            kb.dispose();
        }

        logLines.clear();
        FalconStateBackend backend = tunedBackend();
        AbstractKeyedStateBackend<Integer> restored =
                keyedBackend(backend, Collections.singletonList(checkpoint));
        try {
            // Before any state registered, the restored column families are tuned and logged.
            assertThat(logLines)
                    .contains(
                            "[FALCON] accState is valueState, use HashLinkList as memTable structure (prefix 6 bytes)",
                            "[FALCON] left-records is map, use range filter (prefix 6 bytes)");
            List<Path> options = optionsFiles(tmp);
            assertThat(options).isNotEmpty();
            Path latest = options.get(options.size() - 1);
            assertThat(cfOptions(latest, "accState"))
                    .contains(
                            "memtable_factory=HashLinkListRepFactory",
                            "prefix_extractor=rocksdb.FixedPrefix.6",
                            // Snapshots need it off on every column family (FRocksDB 6.20).
                            "inplace_update_support=false");
            // The memtable bloom as the profile sized it for this slot's (small) write buffers.
            TuningProfile map = TunedBackends.profileOf(restored, "left-records");
            assertThat(map.memtablePrefixBloomRatio()).isPositive();
            assertThat(cfOptions(latest, "left-records"))
                    .contains(
                            "prefix_extractor=rocksdb.FixedPrefix.6",
                            "memtable_factory=SkipListFactory",
                            "inplace_update_support=false",
                            String.format(
                                    Locale.ROOT,
                                    "memtable_prefix_bloom_size_ratio=%.6f",
                                    map.memtablePrefixBloomRatio()),
                            "arena_block_size=" + map.arenaBlockSize());
            verify(restored);
            assertThat(keysOf(restored.getKeys("accState", VoidNamespace.INSTANCE))).hasSize(KEYS);
        } finally {
            restored.dispose();
        }
    }

    /**
     * A canonical savepoint is a point-in-time view although its iterators are opened later, in the
     * asynchronous phase, while the task goes on writing: they read through a RocksDB snapshot
     * taken in the synchronous phase. Between the two phases every value and map entry is
     * overwritten and every column family flushed, so an iterator without a snapshot would read the
     * new values from SST files. Fails when any column family disables snapshots (as {@code
     * inplace_update_support} did: {@code DB::GetSnapshot} then returns null for the whole
     * database).
     */
    @Test
    void canonicalSavepointIsPointInTimeWhileTheTaskKeepsWriting() throws Exception {
        AbstractKeyedStateBackend<Integer> kb =
                keyedBackend(tunedBackend(), Collections.emptyList());
        KeyedStateHandle savepoint;
        try {
            write(kb);
            FalconKeyedStateBackend<Integer> falcon = (FalconKeyedStateBackend<Integer>) kb;
            RunnableFuture<SnapshotResult<KeyedStateHandle>> future = startCanonicalSavepoint(kb);
            ValueState<Long> acc = acc(kb);
            MapState<Long, String> left = left(kb);
            for (int k = 0; k < KEYS; k++) {
                kb.setCurrentKey(k);
                acc.update(-k - 1L);
                left.put(2L, "overwritten");
                left.put(9L, "added");
            }
            for (String state : new String[] {"accState", "left-records"}) {
                assertThat(
                                FalconColumnFamilyAccess.flushColumnFamily(
                                        falcon.getRocksDBKeyedStateBackend(), state))
                        .isTrue();
            }
            savepoint = FutureUtils.runIfNotDoneAndGet(future).getJobManagerOwnedSnapshot();
            assertThat(savepoint)
                    .isInstanceOf(org.apache.flink.runtime.state.KeyGroupsStateHandle.class);
            kb.setCurrentKey(7);
            assertThat(acc.value()).isEqualTo(-8L);
        } finally {
            kb.dispose();
        }

        AbstractKeyedStateBackend<Integer> restored =
                keyedBackend(tunedBackend(), Collections.singletonList(savepoint));
        try {
            verify(restored);
        } finally {
            restored.dispose();
        }
    }

    /**
     * A canonical savepoint of tuned states, taken with data in the memtable, on the stock backend.
     */
    @Test
    void canonicalSavepointRestoresIdenticallyOnTheStockBackend() throws Exception {
        AbstractKeyedStateBackend<Integer> kb =
                keyedBackend(tunedBackend(), Collections.emptyList());
        KeyedStateHandle savepoint;
        try {
            write(kb);
            RunnableFuture<SnapshotResult<KeyedStateHandle>> future = startCanonicalSavepoint(kb);
            savepoint = FutureUtils.runIfNotDoneAndGet(future).getJobManagerOwnedSnapshot();
            assertThat(savepoint).isNotNull();
        } finally {
            kb.dispose();
        }

        EmbeddedRocksDBStateBackend stock = new EmbeddedRocksDBStateBackend(true);
        stock.setDbStoragePath(tmp.resolve("stock").toString());
        AbstractKeyedStateBackend<Integer> restored =
                keyedBackend(
                        stock.configure(new Configuration(), getClass().getClassLoader()),
                        Collections.singletonList(savepoint));
        try {
            verify(restored);
            assertThat(keysOf(restored.getKeys("accState", VoidNamespace.INSTANCE))).hasSize(KEYS);
        } finally {
            restored.dispose();
        }

        // And back onto a tuned Falcon backend.
        AbstractKeyedStateBackend<Integer> again =
                keyedBackend(tunedBackend(), Collections.singletonList(savepoint));
        try {
            verify(again);
            assertThat(keysOf(again.getKeys("accState", VoidNamespace.INSTANCE))).hasSize(KEYS);
        } finally {
            again.dispose();
        }
    }
}
