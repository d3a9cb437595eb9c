/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.nativeaccess.NativeLibrary;
import io.falconstate.flink.tuning.TunedBackends.SnapshotKind;
import io.falconstate.flink.tuning.TunedBackends.Tuning;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.time.Time;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBConfigurableOptions;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.contrib.streaming.state.TuningTestAccess;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The RocksDB features Flink 1.16 uses that a tuning could disable or change ({@link
 * FlinkRocksDbCallSitesTest} lists where Flink uses them), each exercised on column families Falcon
 * tuned, under every tuning combination, with data in SST files and in memtables (or the cache):
 * snapshots, canonical savepoints read through them, the TTL compaction filter, and rescaling
 * restores that clip with {@code deleteRange} or copy through temporary databases.
 */
class RocksDbFeaturesOnTunedColumnFamiliesTest {

    private static final int KEYS = 300;
    private static final String VALUES = "values";
    private static final String MAP = "map";

    @TempDir Path tmp;

    private MockEnvironment env;
    private TunedBackends.Snapshots snapshots;

    @BeforeAll
    static void nativeLibrary() {
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    @BeforeEach
    void setUp() {
        env = MockEnvironment.builder().build();
        snapshots = new TunedBackends.Snapshots();
    }

    @AfterEach
    void tearDown() throws Exception {
        env.close();
    }

    private static ValueState<String> values(AbstractKeyedStateBackend<Long> kb) throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>(VALUES, StringSerializer.INSTANCE));
    }

    private static MapState<Long, String> map(AbstractKeyedStateBackend<Long> kb) throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new MapStateDescriptor<>(MAP, LongSerializer.INSTANCE, StringSerializer.INSTANCE));
    }

    /** Keys [from, to): value "v" + k, map {k % 5 → "m" + k}; half in SST, half not. */
    private static void write(AbstractKeyedStateBackend<Long> kb, String tag) throws Exception {
        ValueState<String> values = values(kb);
        MapState<Long, String> map = map(kb);
        for (long k = 0; k < KEYS; k++) {
            if (k == KEYS / 2) {
                TunedBackends.pushToSst(kb, VALUES, MAP);
            }
            kb.setCurrentKey(k);
            values.update(tag + k);
            map.put(k % 5, tag + "m" + k);
        }
    }

    private static void check(AbstractKeyedStateBackend<Long> kb, String tag, Set<Long> keys)
            throws Exception {
        ValueState<String> values = values(kb);
        MapState<Long, String> map = map(kb);
        for (long k = 0; k < KEYS; k++) {
            kb.setCurrentKey(k);
            boolean present = keys.contains(k);
            assertThat(values.value()).as("value of %s", k).isEqualTo(present ? tag + k : null);
            assertThat(map.get(k % 5)).as("map of %s", k).isEqualTo(present ? tag + "m" + k : null);
            assertThat(map.isEmpty()).isEqualTo(!present);
        }
    }

    private static Set<Long> allKeys() {
        Set<Long> keys = new TreeSet<>();
        for (long k = 0; k < KEYS; k++) {
            keys.add(k);
        }
        return keys;
    }

    private static void assertTuned(AbstractKeyedStateBackend<Long> kb, Tuning tuning) {
        assertThat(TunedBackends.hasHashMemtable(kb, VALUES)).as(VALUES + " tuned").isTrue();
        assertThat(TunedBackends.hasRangeFilter(kb, MAP))
                .as(MAP + " range filter")
                .isEqualTo(tuning.rangeFilter());
    }

    /**
     * Snapshots stay available on a database with tuned column families, and a canonical savepoint,
     * whose iterators open only in the asynchronous phase, reads through one: what the task writes
     * and flushes between the two phases is not in it.
     */
    @ParameterizedTest
    @EnumSource(Tuning.class)
    void canonicalSavepointReadsThroughASnapshot(Tuning tuning) throws Exception {
        AbstractKeyedStateBackend<Long> kb =
                TunedBackends.keyed(
                        TunedBackends.falcon(tuning, true, tmp), env, Collections.emptyList());
        KeyedStateHandle savepoint;
        try {
            write(kb, "a");
            assertTuned(kb, tuning);
            assertThat(TuningTestAccess.givesSnapshots(TunedBackends.rocksDb(kb))).isTrue();

            RunnableFuture<SnapshotResult<KeyedStateHandle>> future =
                    snapshots.start(kb, SnapshotKind.CANONICAL_SAVEPOINT);
            ValueState<String> values = values(kb);
            MapState<Long, String> map = map(kb);
            for (long k = 0; k < KEYS + 50; k++) {
                kb.setCurrentKey(k);
                values.update("b" + k);
                map.put(k % 5, "bm" + k);
                map.put(99L, "new");
            }
            TunedBackends.pushToSst(kb, VALUES, MAP);
            savepoint = snapshots.complete(future);
        } finally {
            kb.dispose();
        }
        for (boolean onFalcon : new boolean[] {true, false}) {
            AbstractKeyedStateBackend<Long> restored =
                    TunedBackends.keyed(
                            onFalcon
                                    ? TunedBackends.falcon(tuning, true, tmp)
                                    : TunedBackends.stock(true, tmp),
                            env,
                            TunedBackends.from(savepoint));
            try {
                check(restored, "a", allKeys());
                restored.setCurrentKey(KEYS + 1L);
                assertThat(values(restored).value()).isNull();
            } finally {
                restored.dispose();
            }
        }
    }

    /**
     * Flink's TTL compaction filter, installed on the column family after Falcon's tuning, drops
     * expired entries of tuned column families from SST files; the states read nothing expired
     * whether the cache still holds the entry or not.
     */
    @ParameterizedTest
    @EnumSource(Tuning.class)
    void ttlCompactionFilterDropsExpiredEntriesOfTunedColumnFamilies(Tuning tuning)
            throws Exception {
        long[] now = {1_000L};
        TtlTimeProvider clock = () -> now[0];
        StateTtlConfig ttl =
                StateTtlConfig.newBuilder(Time.milliseconds(100))
                        .cleanupInRocksdbCompactFilter(1)
                        .build();
        ValueStateDescriptor<String> valueDescriptor =
                new ValueStateDescriptor<>(VALUES, StringSerializer.INSTANCE);
        valueDescriptor.enableTimeToLive(ttl);
        MapStateDescriptor<Long, String> mapDescriptor =
                new MapStateDescriptor<>(MAP, LongSerializer.INSTANCE, StringSerializer.INSTANCE);
        mapDescriptor.enableTimeToLive(ttl);

        AbstractKeyedStateBackend<Long> kb =
                TunedBackends.keyed(
                        TunedBackends.falcon(tuning, true, tmp),
                        env,
                        new KeyGroupRange(0, TunedBackends.MAX_PARALLELISM - 1),
                        Collections.emptyList(),
                        clock);
        try {
            ValueState<String> values =
                    kb.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            valueDescriptor);
            MapState<Long, String> map =
                    kb.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            mapDescriptor);
            assertTuned(kb, tuning);
            for (long k = 0; k < KEYS; k++) {
                if (k == KEYS / 2) {
                    now[0] = 1_050L; // the second half expires 50 ms later than the first
                }
                kb.setCurrentKey(k);
                values.update("v" + k);
                map.put(k, "m" + k);
            }
            RocksDBKeyedStateBackend<?> rocksDb = TunedBackends.rocksDb(kb);
            TunedBackends.pushToSst(kb, VALUES, MAP);
            assertThat(TuningTestAccess.entries(rocksDb, VALUES)).isEqualTo(KEYS);
            assertThat(TuningTestAccess.entries(rocksDb, MAP)).isEqualTo(KEYS);

            now[0] = 1_120L; // the first half has expired, the second has not
            assertThat(compactUntil(rocksDb, valueDescriptor, VALUES, KEYS - KEYS / 2))
                    .isEqualTo(KEYS - KEYS / 2);
            assertThat(compactUntil(rocksDb, mapDescriptor, MAP, KEYS - KEYS / 2))
                    .isEqualTo(KEYS - KEYS / 2);
            for (long k = 0; k < KEYS; k++) {
                kb.setCurrentKey(k);
                boolean alive = k >= KEYS / 2;
                assertThat(values.value()).as("value of %s", k).isEqualTo(alive ? "v" + k : null);
                assertThat(map.get(k)).as("map of %s", k).isEqualTo(alive ? "m" + k : null);
            }
        } finally {
            kb.dispose();
        }
    }

    /**
     * The TTL compaction filter may drop expired entries from RocksDB while the cache holds their
     * whole map: harmless, because Flink's TTL wrapper (above the cached state) checks every value
     * it reads, and write-back writes only dirty records, so nothing compacted away comes back.
     */
    @ParameterizedTest
    @EnumSource(
            value = Tuning.class,
            names = {"DEFAULTS", "NO_RANGE_FILTER"})
    void ttlCompactionBeneathCachedMapsIsHarmless(Tuning tuning) throws Exception {
        long[] now = {1_000L};
        TtlTimeProvider clock = () -> now[0];
        MapStateDescriptor<Long, String> descriptor =
                new MapStateDescriptor<>(MAP, LongSerializer.INSTANCE, StringSerializer.INSTANCE);
        descriptor.enableTimeToLive(
                StateTtlConfig.newBuilder(Time.milliseconds(100))
                        .cleanupInRocksdbCompactFilter(1)
                        .build());
        AbstractKeyedStateBackend<Long> kb =
                TunedBackends.keyed(
                        TunedBackends.falcon(tuning, true, tmp),
                        env,
                        new KeyGroupRange(0, TunedBackends.MAX_PARALLELISM - 1),
                        Collections.emptyList(),
                        clock);
        try {
            MapState<Long, String> map =
                    kb.getPartitionedState(
                            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
            for (long k = 0; k < 50; k++) {
                kb.setCurrentKey(k);
                map.put(1L, "old" + k); // expires at 1,100
            }
            now[0] = 1_060L;
            for (long k = 0; k < 50; k++) {
                kb.setCurrentKey(k);
                map.put(2L, "young" + k); // expires at 1,160
                map.get(1L); // touched twice: now cached whole
                assertThat(map.get(1L)).isEqualTo("old" + k);
            }
            HotStateCacheManager<Long> cache =
                    ((FalconKeyedStateBackend<Long>) kb).getHotStateCache();
            assertThat(cache.mapStats(MAP).loads()).as("maps cached").isEqualTo(50);
            RocksDBKeyedStateBackend<?> rocksDb = TunedBackends.rocksDb(kb);
            TunedBackends.pushToSst(kb, MAP);
            now[0] = 1_120L; // entry 1 expired, entry 2 not
            assertThat(compactUntil(rocksDb, descriptor, MAP, 50))
                    .as("the filter dropped every expired entry beneath the cached maps")
                    .isEqualTo(50);
            for (long k = 0; k < 50; k++) {
                kb.setCurrentKey(k);
                assertThat(map.get(1L)).as("expired, though still cached").isNull();
                assertThat(map.get(2L)).isEqualTo("young" + k);
                map.put(3L, "new" + k);
            }
            TunedBackends.pushToSst(kb, MAP);
            assertThat(TuningTestAccess.entries(rocksDb, MAP))
                    .as("write-back brought nothing compacted back")
                    .isEqualTo(100);
        } finally {
            kb.dispose();
        }
    }

    /**
     * Rescaling restores of an incremental checkpoint into tuned column families: with Flink's
     * default threshold the base database is clipped to the new key groups with {@code
     * deleteRange}; with threshold 1 every handle is copied through a temporary database with
     * key-group seeks. Either way each half sees exactly its keys, its scans are complete, and it
     * writes, snapshots and restores normally afterwards.
     */
    @ParameterizedTest
    @EnumSource(Tuning.class)
    void rescalingRestoresClipOrCopyIntoTunedColumnFamilies(Tuning tuning) throws Exception {
        AbstractKeyedStateBackend<Long> kb =
                TunedBackends.keyed(
                        TunedBackends.falcon(tuning, true, tmp), env, Collections.emptyList());
        KeyedStateHandle checkpoint;
        try {
            write(kb, "a");
            checkpoint = snapshots.take(kb, SnapshotKind.CHECKPOINT);
        } finally {
            kb.dispose();
        }
        int half = TunedBackends.MAX_PARALLELISM / 2;
        for (double threshold : new double[] {0.0, 1.0}) {
            for (KeyGroupRange range :
                    new KeyGroupRange[] {
                        new KeyGroupRange(0, half - 1),
                        new KeyGroupRange(half, TunedBackends.MAX_PARALLELISM - 1)
                    }) {
                rescaleInto(tuning, checkpoint, range, threshold);
            }
        }
    }

    private void rescaleInto(
            Tuning tuning, KeyedStateHandle checkpoint, KeyGroupRange range, double threshold)
            throws Exception {
        Configuration config = tuning.config();
        config.set(RocksDBConfigurableOptions.RESTORE_OVERLAP_FRACTION_THRESHOLD, threshold);
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
        rocksDb.setDbStoragePath(tmp.resolve("rescaled-" + UUID.randomUUID()).toString());
        FalconStateBackend backend =
                new FalconStateBackend(rocksDb).configure(config, getClass().getClassLoader());

        Set<Long> mine =
                allKeys().stream()
                        .filter(
                                k ->
                                        range.contains(
                                                KeyGroupRangeAssignment.assignToKeyGroup(
                                                        k, TunedBackends.MAX_PARALLELISM)))
                        .collect(Collectors.toCollection(TreeSet::new));
        assertThat(mine).isNotEmpty().hasSizeLessThan(KEYS);
        String what = "range " + range + ", threshold " + threshold;

        AbstractKeyedStateBackend<Long> restored =
                TunedBackends.keyed(
                        backend,
                        env,
                        range,
                        TunedBackends.from(checkpoint),
                        TtlTimeProvider.DEFAULT);
        KeyedStateHandle next;
        try {
            assertTuned(restored, tuning);
            for (Long k : mine) {
                restored.setCurrentKey(k);
                assertThat(values(restored).value()).as(what).isEqualTo("a" + k);
            }
            assertThat(keys(restored, VALUES)).as(what).isEqualTo(mine);
            assertThat(keys(restored, MAP)).as(what).isEqualTo(mine);
            ValueState<String> values = values(restored);
            MapState<Long, String> map = map(restored);
            for (Long k : mine) {
                restored.setCurrentKey(k);
                values.update("c" + k);
                map.put(k % 5, "cm" + k);
            }
            next = snapshots.take(restored, SnapshotKind.CHECKPOINT);
        } finally {
            restored.dispose();
        }
        AbstractKeyedStateBackend<Long> again =
                TunedBackends.keyed(
                        TunedBackends.falcon(tuning, true, tmp),
                        env,
                        range,
                        TunedBackends.from(next),
                        TtlTimeProvider.DEFAULT);
        try {
            ValueState<String> values = values(again);
            MapState<Long, String> map = map(again);
            for (Long k : mine) {
                again.setCurrentKey(k);
                assertThat(values.value()).as(what).isEqualTo("c" + k);
                assertThat(map.get(k % 5)).as(what).isEqualTo("cm" + k);
            }
            assertThat(keys(again, VALUES)).as(what).isEqualTo(mine);
        } finally {
            again.dispose();
        }
    }

    /**
     * Compacts the state's column family (Flink's test hook) and counts its entries, up to three
     * times until no more than {@code expected} remain: a background compaction that began before
     * the clock moved can still be running with the old time when the first one starts.
     */
    private static long compactUntil(
            RocksDBKeyedStateBackend<?> rocksDb,
            StateDescriptor<?, ?> descriptor,
            String state,
            long expected)
            throws Exception {
        long entries = -1;
        for (int attempt = 0; attempt < 3 && entries != expected; attempt++) {
            rocksDb.compactState(descriptor);
            entries = TuningTestAccess.entries(rocksDb, state);
        }
        return entries;
    }

    private static Set<Long> keys(AbstractKeyedStateBackend<Long> kb, String state) {
        try (Stream<Long> keys = kb.getKeys(state, VoidNamespace.INSTANCE)) {
            List<Long> list = keys.collect(Collectors.toCollection(ArrayList::new));
            Set<Long> set = new TreeSet<>(list);
            assertThat(set).as("no key twice").hasSameSizeAs(list);
            return set;
        }
    }
}
