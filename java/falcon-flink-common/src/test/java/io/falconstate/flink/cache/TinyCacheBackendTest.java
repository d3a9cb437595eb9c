/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.StateBackendCalls;
import io.falconstate.flink.nativeaccess.CacheStats;
import io.falconstate.flink.tuning.TunedBackends;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.IOUtils;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Falcon's keyed backend with a hot-state cache of {@value CachedBackends#TINY_CACHE_ENTRIES}
 * entries: values larger than the cache, maps too large for it, evictions and dirty write-backs,
 * and the written-key filter, before and after a restore. Subclasses change Falcon's options
 * ({@link #falconConfig()}); the same options run Flink's own suite in {@link
 * TinyCacheFalconStateBackendTest} and its subclasses.
 */
public class TinyCacheBackendTest {

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

    /** Falcon's options for these tests: the tiny cache (subclasses add to it). */
    protected Configuration falconConfig() {
        return CachedBackends.tinyCache(new Configuration());
    }

    /** Fails the test unless {@link #falconConfig()} really switched its parts on. */
    protected void checkSwitchedOn(FalconStateBackend backend) {
        if (!backend.isCacheEnabled()) {
            throw new IllegalStateException("cache not switched on: " + backend);
        }
    }

    /** A new keyed backend of Falcon with {@link #falconConfig()}, in its own directory. */
    protected <K> CheckpointableKeyedStateBackend<K> createKeyedBackend(
            TypeSerializer<K> keySerializer) throws Exception {
        return keyedBackend(keySerializer, Collections.emptyList());
    }

    /** A keyed backend of Falcon with {@link #falconConfig()} restored from {@code snapshot}. */
    protected <K> CheckpointableKeyedStateBackend<K> restoreKeyedBackend(
            TypeSerializer<K> keySerializer, KeyedStateHandle snapshot) throws Exception {
        return keyedBackend(keySerializer, TunedBackends.from(snapshot));
    }

    private <K> CheckpointableKeyedStateBackend<K> keyedBackend(
            TypeSerializer<K> keySerializer, Collection<KeyedStateHandle> restore)
            throws Exception {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
        rocksDb.setPriorityQueueStateType(
                EmbeddedRocksDBStateBackend.PriorityQueueStateType.ROCKSDB);
        rocksDb.setDbStoragePath(Files.createTempDirectory(tmp, "db").toString());
        FalconStateBackend falcon =
                new FalconStateBackend(rocksDb)
                        .configure(falconConfig(), Thread.currentThread().getContextClassLoader());
        checkSwitchedOn(falcon);
        return StateBackendCalls.keyedBackend(
                falcon,
                env,
                new JobID(),
                "tiny-cache (1/1)#0",
                keySerializer,
                MAX_PARALLELISM,
                new KeyGroupRange(0, MAX_PARALLELISM - 1),
                env.getTaskKvStateRegistry(),
                TtlTimeProvider.DEFAULT,
                new UnregisteredMetricsGroup(),
                restore,
                new CloseableRegistry(),
                1.0);
    }

    /** A {@code ValueState<String>} named {@code name} in the void namespace of {@code backend}. */
    protected static ValueState<String> stringState(
            CheckpointableKeyedStateBackend<Integer> backend, String name) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>(name, StringSerializer.INSTANCE));
    }

    /**
     * A value larger than the whole cache (and than the io buffer it is serialized into) goes to
     * RocksDB at once, byte for byte, and reads back from there.
     */
    @Test
    public void testValueLargerThanTheCacheGoesToRocksDbIntact() throws Exception {
        CheckpointableKeyedStateBackend<Integer> backend =
                createKeyedBackend(IntSerializer.INSTANCE);
        try {
            ValueState<String> state = stringState(backend, "large");
            StringBuilder text = new StringBuilder();
            for (int i = 0; text.length() < 100_000; i++) {
                text.append(i).append(i % 7 == 0 ? '\u20ac' : ' ');
            }
            String large = text.toString();
            backend.setCurrentKey(1);
            state.update(large);
            backend.setCurrentKey(2);
            state.update("small");
            HotStateCacheManager<Integer> cache =
                    ((FalconKeyedStateBackend<Integer>) backend).getHotStateCache();
            assertThat(cache).isNotNull();
            assertThat(cache.stats("large").notCached()).isEqualTo(1);
            backend.setCurrentKey(1);
            assertThat(state.value()).isEqualTo(large);
            backend.setCurrentKey(2);
            assertThat(state.value()).isEqualTo("small");
        } finally {
            backend.dispose();
        }
    }

    /**
     * A map too large for the cache is read from RocksDB with the bytes the cache lookup
     * serialized: values of every size (larger than the read buffer too), null values, and keys it
     * does not hold.
     */
    @Test
    public void testMapTooLargeForTheCacheIsReadFromRocksDb() throws Exception {
        CheckpointableKeyedStateBackend<Integer> backend =
                createKeyedBackend(IntSerializer.INSTANCE);
        try {
            MapState<Integer, String> map =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new MapStateDescriptor<>(
                                    "large-map",
                                    IntSerializer.INSTANCE,
                                    StringSerializer.INSTANCE));
            backend.setCurrentKey(7);
            StringBuilder value = new StringBuilder("v");
            for (int i = 0; i < 16; i++) {
                map.put(i, i == 3 ? null : value.toString());
                value.append(value); // 1 to 32,768 characters: past every buffer's first size
            }
            HotStateCacheManager<Integer> cache =
                    ((FalconKeyedStateBackend<Integer>) backend).getHotStateCache();
            assertThat(cache).isNotNull();
            for (int round = 0; round < 2; round++) {
                value.setLength(1);
                for (int i = 0; i < 16; i++) {
                    assertThat(map.get(i)).isEqualTo(i == 3 ? null : value.toString());
                    assertThat(map.contains(i)).isTrue();
                    value.append(value);
                }
                assertThat(map.get(16)).isNull();
                assertThat(map.contains(-1)).isFalse();
            }
            assertThat(cache.mapStats("large-map").oversized()).isPositive();
        } finally {
            backend.dispose();
        }
    }

    /**
     * Keys of a map too large for the cache are read, written and removed in RocksDB with the bytes
     * the lookup serialized, whatever their length: user keys from 1 to 2,048 characters, past the
     * size of every reused key buffer (values of 8 KiB put the map over the cache).
     */
    @Test
    public void testMapTooLargeForTheCacheTakesKeysOfEveryLength() throws Exception {
        CheckpointableKeyedStateBackend<Integer> backend =
                createKeyedBackend(IntSerializer.INSTANCE);
        try {
            MapState<String, String> map =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new MapStateDescriptor<>(
                                    "long-keys",
                                    StringSerializer.INSTANCE,
                                    StringSerializer.INSTANCE));
            backend.setCurrentKey(3);
            List<String> keys = new ArrayList<>();
            StringBuilder key = new StringBuilder("k");
            for (int i = 0; i < 12; i++) {
                keys.add(key.toString());
                map.put(key.toString(), valueOf(key.length()));
                key.append(key);
            }
            HotStateCacheManager<Integer> cache =
                    ((FalconKeyedStateBackend<Integer>) backend).getHotStateCache();
            assertThat(cache).isNotNull();
            // Longer than every key written so far: the first use of its length is a read.
            assertThat(map.get(key.toString())).isNull();
            assertThat(map.contains(key.toString() + key)).isFalse();
            for (String k : keys) {
                assertThat(map.get(k)).isEqualTo(valueOf(k.length()));
                assertThat(map.contains(k)).isTrue();
                assertThat(map.get(k + "?")).isNull();
            }
            map.remove(keys.get(11));
            map.put(keys.get(10), "changed");
            assertThat(map.get(keys.get(11))).isNull();
            assertThat(map.get(keys.get(10))).isEqualTo("changed");
            assertThat(cache.mapStats("long-keys").oversized()).isPositive();
        } finally {
            backend.dispose();
        }
    }

    /** An 8 KiB value that names {@code keyLength}. */
    private static String valueOf(int keyLength) {
        StringBuilder value = new StringBuilder("value of ").append(keyLength).append(':');
        while (value.length() < 8192) {
            value.append((char) ('a' + value.length() % 26));
        }
        return value.toString();
    }

    /** The configuration really evicts and writes back, and nothing is lost doing so. */
    @Test
    public void testTinyCacheEvictsAndWritesBack() throws Exception {
        CheckpointableKeyedStateBackend<Integer> backend =
                createKeyedBackend(IntSerializer.INSTANCE);
        try {
            ValueState<String> state = stringState(backend, "tiny");
            for (int key = 0; key < 100; key++) {
                backend.setCurrentKey(key);
                state.update("v" + key);
            }
            for (int key = 0; key < 100; key++) {
                backend.setCurrentKey(key);
                assertThat(state.value()).isEqualTo("v" + key);
            }
            HotStateCacheManager<Integer> cache =
                    ((FalconKeyedStateBackend<Integer>) backend).getHotStateCache();
            assertThat(cache).isNotNull();
            CacheStats stats = cache.stats("tiny");
            assertThat(stats.entries()).isLessThanOrEqualTo(CachedBackends.TINY_CACHE_ENTRIES);
            assertThat(stats.evictions()).isGreaterThan(90);
            assertThat(stats.dirtyWriteBacks()).isGreaterThan(90);
            assertThat(cache.recordsWrittenBack()).isGreaterThan(90);
        } finally {
            backend.dispose();
        }
    }

    /**
     * Values evicted and written back are found again; keys nobody wrote are answered by the
     * written-key filter without RocksDB; after a restore the filter is built from the restored
     * keys.
     */
    @Test
    public void testWrittenKeyFilterAnswersOnlyNeverWrittenKeys() throws Exception {
        acrossARestore(
                IntSerializer.INSTANCE,
                backend -> {
                    ValueState<String> state = stringState(backend, "windows");
                    writeAndReadBack(backend, state, 0, 200);
                    writeAndReadBack(backend, state, 200, 400);
                    for (int key = 1000; key < 1200; key++) {
                        backend.setCurrentKey(key);
                        assertThat(state.value()).isNull();
                    }
                    checkNeverWrittenReads(writtenKeyFilter(backend, "windows"), 150, true);
                },
                restored -> {
                    ValueState<String> state = stringState(restored, "windows");
                    for (int key = 0; key < 400; key++) {
                        restored.setCurrentKey(key);
                        assertThat(state.value()).isEqualTo("v" + key);
                    }
                    for (int key = 2000; key < 2200; key++) {
                        restored.setCurrentKey(key);
                        assertThat(state.value()).isNull();
                    }
                    checkNeverWrittenReads(writtenKeyFilter(restored, "windows"), 150, false);
                });
    }

    /**
     * A window's slices: keys first read unwritten, then written (the early ones evicted and
     * written back by the tiny cache, the late ones still only in the cache), then cleared. A
     * cleared key is absent afterwards and after a restore, whether RocksDB had it (a tombstone) or
     * never got it (dropped from the cache); the keys written after them survive.
     */
    @Test
    public void testClearedKeysStayClearedWhetherOrNotRocksDbHadThem() throws Exception {
        acrossARestore(
                IntSerializer.INSTANCE,
                backend -> {
                    ValueState<String> state = stringState(backend, "slices");
                    for (int key = 0; key < 400; key++) {
                        backend.setCurrentKey(key);
                        assertThat(state.value()).isNull();
                        assertThat(state.value()).isNull();
                        state.update("v" + key);
                    }
                    for (int key = 0; key < 400; key++) {
                        backend.setCurrentKey(key);
                        state.clear();
                        assertThat(state.value()).as("key %d", key).isNull();
                    }
                    for (int key = 300; key < 500; key++) {
                        backend.setCurrentKey(key);
                        state.update("w" + key);
                    }
                    for (int key = 0; key < 500; key++) {
                        backend.setCurrentKey(key);
                        assertThat(state.value())
                                .as("key %d", key)
                                .isEqualTo(key < 300 ? null : "w" + key);
                    }
                    checkNeverWrittenReads(writtenKeyFilter(backend, "slices"), 400, false);
                },
                restored -> {
                    ValueState<String> state = stringState(restored, "slices");
                    for (int key = 0; key < 500; key++) {
                        restored.setCurrentKey(key);
                        assertThat(state.value())
                                .as("key %d", key)
                                .isEqualTo(key < 300 ? null : "w" + key);
                    }
                });
    }

    /**
     * MapState: maps written, evicted and written back are found again (the write-back hands their
     * prefixes to the filter); maps nobody wrote, of new keys or of written keys in another
     * namespace, are loaded empty without RocksDB; after a restore the filter is built by parsing
     * the restored keys' map prefixes, here in the layout with a length after the key and after the
     * namespace (both variable-sized).
     */
    @Test
    public void testWrittenKeyFilterAnswersOnlyNeverWrittenMaps() throws Exception {
        acrossARestore(
                StringSerializer.INSTANCE,
                backend -> {
                    MapsUnderTest maps = new MapsUnderTest(backend);
                    maps.writeAndReadBack(0, 200);
                    maps.writeAndReadBack(200, 400);
                    maps.readNeverWritten(1000, 1200);
                    checkNeverWrittenReads(writtenKeyFilter(backend, "maps"), 300, true);
                },
                restored -> {
                    MapsUnderTest maps = new MapsUnderTest(restored);
                    for (int key = 0; key < 400; key++) {
                        maps.check(key);
                    }
                    maps.readNeverWritten(2000, 2200);
                    checkNeverWrittenReads(writtenKeyFilter(restored, "maps"), 300, false);
                });
    }

    /** Steps on one backend. */
    private interface BackendSteps<K> {
        void run(CheckpointableKeyedStateBackend<K> backend) throws Exception;
    }

    /**
     * Runs {@code before} on a new backend, checkpoints it, and runs {@code after} on a backend
     * restored from that checkpoint; disposes both.
     */
    private <K> void acrossARestore(
            TypeSerializer<K> keySerializer, BackendSteps<K> before, BackendSteps<K> after)
            throws Exception {
        CheckpointableKeyedStateBackend<K> backend = createKeyedBackend(keySerializer);
        KeyedStateHandle snapshot;
        try {
            before.run(backend);
            snapshot =
                    new TunedBackends.Snapshots()
                            .take(
                                    (AbstractKeyedStateBackend<K>) backend,
                                    TunedBackends.SnapshotKind.CHECKPOINT);
        } finally {
            backend.dispose();
        }
        CheckpointableKeyedStateBackend<K> restored = restoreKeyedBackend(keySerializer, snapshot);
        try {
            after.run(restored);
        } finally {
            restored.dispose();
        }
    }

    /** The MapState "maps" (String keys and namespaces) of one backend, with the test's steps. */
    private static final class MapsUnderTest {

        private final CheckpointableKeyedStateBackend<String> backend;
        private final InternalMapState<String, String, Integer, String> state;

        @SuppressWarnings("unchecked")
        MapsUnderTest(CheckpointableKeyedStateBackend<String> backend) throws Exception {
            this.backend = backend;
            this.state =
                    (InternalMapState<String, String, Integer, String>)
                            backend.getOrCreateKeyedState(
                                    StringSerializer.INSTANCE,
                                    new MapStateDescriptor<>(
                                            "maps",
                                            IntSerializer.INSTANCE,
                                            StringSerializer.INSTANCE));
        }

        private void select(int key, String namespace) {
            backend.setCurrentKey("key-" + key);
            state.setCurrentNamespace(namespace);
        }

        private static String namespace(int key) {
            return "window-" + (key % 3);
        }

        /**
         * Key {@code key}'s map in its namespace gets {1: "a" + key, 2: "b" + key}, through the
         * cache for even keys; all read back.
         */
        void writeAndReadBack(int from, int to) throws Exception {
            for (int key = from; key < to; key++) {
                select(key, namespace(key));
                if (key % 2 == 0) {
                    // Read first (as a join does): the map is loaded, empty, and the puts stay in
                    // the cache until the write-back; otherwise they go to RocksDB directly.
                    assertThat(state.get(1)).isNull();
                }
                state.put(1, "a" + key);
                state.put(2, "b" + key);
            }
            for (int key = from; key < to; key++) {
                check(key);
            }
        }

        void check(int key) throws Exception {
            select(key, namespace(key));
            assertThat(state.get(1)).as("key %d", key).isEqualTo("a" + key);
            assertThat(state.get(2)).as("key %d", key).isEqualTo("b" + key);
            assertThat(state.isEmpty()).isFalse();
        }

        /** Maps of keys [from, to), and of written keys in a namespace nobody used: all empty. */
        void readNeverWritten(int from, int to) throws Exception {
            for (int key = from; key < to; key++) {
                select(key, namespace(key));
                assertThat(state.get(1)).isNull();
                assertThat(state.isEmpty()).isTrue();
            }
            for (int key = 0; key < to - from; key++) {
                select(key, "unused");
                assertThat(state.contains(1)).isFalse();
            }
        }
    }

    /** Writes "v" + key for keys [from, to), then reads every one back. */
    protected static void writeAndReadBack(
            CheckpointableKeyedStateBackend<Integer> backend,
            ValueState<String> state,
            int from,
            int to)
            throws Exception {
        for (int key = from; key < to; key++) {
            backend.setCurrentKey(key);
            state.update("v" + key);
        }
        for (int key = from; key < to; key++) {
            backend.setCurrentKey(key);
            assertThat(state.value()).isEqualTo("v" + key);
        }
    }

    /**
     * Overridden where states go direct part of the time (the filter then sees fewer reads, and is
     * rebuilt after updates made while direct when {@code afterUpdates}).
     */
    protected void checkNeverWrittenReads(
            WrittenKeyFilter filter, long atLeast, boolean afterUpdates) {
        assertThat(filter.knownAbsentReads()).isGreaterThanOrEqualTo(atLeast);
    }

    protected static <K> WrittenKeyFilter writtenKeyFilter(
            CheckpointableKeyedStateBackend<K> backend, String stateName) {
        HotStateCacheManager<K> cache = ((FalconKeyedStateBackend<K>) backend).getHotStateCache();
        assertThat(cache).isNotNull();
        WrittenKeyFilter filter = cache.writtenKeyFilter(stateName);
        assertThat(filter).isNotNull();
        return filter;
    }
}
