/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.StateBackendCalls;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What real states' self-switching counts. A MapState: reads of a map over the cap cost what the
 * stock read costs, so they are left out of the hit ratio (the state is judged by the maps the
 * cache holds), and a state that is mostly such reads still goes to RocksDB; a miss weighs more the
 * more entries it loads. A ValueState: a read the written-key filter answers is a hit, not a miss
 * as well. A ListState: an add merged into RocksDB and a list evicted are not cacheable.
 */
class CacheSwitchDecisionTest {

    private static final int WINDOW = 64;
    private static final int OVERSIZED_KEY = 0;
    private static final int SMALL_MAPS = 8;

    @TempDir Path tmp;

    private MockEnvironment env;
    private AbstractKeyedStateBackend<Integer> backend;

    @BeforeAll
    static void nativeLibrary() {
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    @BeforeEach
    void setUp() throws Exception {
        env = MockEnvironment.builder().setManagedMemorySize(64L << 20).build();
        open(new Configuration());
    }

    /** A backend with the test's switch settings on top of {@code config}. */
    @SuppressWarnings("unchecked")
    private void open(Configuration config) throws Exception {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(false);
        rocksDb.setDbStoragePath(tmp.toString());
        config.set(FalconOptions.CACHE_MAP_STATE_MAX_BYTES_PER_MAP, MemorySize.parse("1kb"));
        config.set(FalconOptions.CACHE_LIST_STATE_ENABLED, true);
        config.set(FalconOptions.CACHE_LIST_STATE_MAX_BYTES_PER_LIST, MemorySize.parse("1kb"));
        config.set(FalconOptions.CACHE_MAP_STATE_BYPASS_HIT_RATIO, 0.75);
        config.set(FalconOptions.CACHE_BYPASS_HIT_RATIO, 0.75);
        config.set(FalconOptions.CACHE_SWITCH_WINDOW, WINDOW);
        config.set(FalconOptions.CACHE_SWITCH_RETRY_OPERATIONS, 1_000_000L);
        backend =
                (AbstractKeyedStateBackend<Integer>)
                        StateBackendCalls.keyedBackend(
                                new FalconStateBackend(rocksDb)
                                        .configure(config, getClass().getClassLoader()),
                                env,
                                new JobID(),
                                "switch (1/1)#0",
                                IntSerializer.INSTANCE,
                                128,
                                new KeyGroupRange(0, 127),
                                env.getTaskKvStateRegistry(),
                                TtlTimeProvider.DEFAULT,
                                new UnregisteredMetricsGroup(),
                                Collections.emptyList(),
                                new CloseableRegistry(),
                                1.0);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (backend != null) {
            backend.dispose();
        }
        env.close();
    }

    private MapState<Integer, String> maps(String name) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new MapStateDescriptor<>(name, IntSerializer.INSTANCE, StringSerializer.INSTANCE));
    }

    /** Key 0's map over the 1 KiB cap, keys 1..SMALL_MAPS one small entry each. */
    private void fill(MapState<Integer, String> state) throws Exception {
        backend.setCurrentKey(OVERSIZED_KEY);
        for (int i = 0; i < 100; i++) {
            state.put(i, "value-of-a-map-over-the-cap-" + i);
        }
        for (int key = 1; key <= SMALL_MAPS; key++) {
            backend.setCurrentKey(key);
            state.put(1, "small-" + key);
        }
    }

    private HotStateCacheManager<Integer> cache() {
        return ((FalconKeyedStateBackend<Integer>) backend).getHotStateCache();
    }

    /**
     * Two reads in five find the map over the cap: with them counted as misses the hit ratio would
     * be 0.6, under the 0.75 threshold; the cached maps hit every time, and the state stays cached.
     */
    @Test
    void readsOfMapsOverTheCapDoNotCountAgainstTheCachedMaps() throws Exception {
        MapState<Integer, String> state = maps("mixed");
        fill(state);
        for (int op = 0; op < 40 * WINDOW; op++) {
            if (op % 5 < 2) {
                backend.setCurrentKey(OVERSIZED_KEY);
                assertThat(state.get(op % 100))
                        .isEqualTo("value-of-a-map-over-the-cap-" + op % 100);
            } else {
                int key = 1 + op % SMALL_MAPS;
                backend.setCurrentKey(key);
                assertThat(state.get(1)).isEqualTo("small-" + key);
            }
        }
        assertThat(cache().mapStats("mixed").oversized()).isPositive();
        assertThat(cache().cacheSwitchedOff("mixed")).isZero();
        assertThat(cache().directOperations("mixed")).isZero();
    }

    /**
     * Every read is of a key never written, which the written-key filter answers without RocksDB:
     * counted as a hit and a miss, the ratio would be 0.5, under the 0.75 threshold.
     */
    @Test
    void readsTheWrittenKeyFilterAnswersAreHits() throws Exception {
        ValueState<String> state =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>("values", StringSerializer.INSTANCE));
        for (int key = 0; key < 40 * WINDOW; key++) {
            backend.setCurrentKey(key);
            assertThat(state.value()).isNull();
        }
        assertThat(cache().writtenKeyFilter("values").knownAbsentReads())
                .isGreaterThan(30L * WINDOW);
        assertThat(cache().cacheSwitchedOff("values")).isZero();
    }

    /** A ValueState's filter follows max-keys and a MapState's max-maps: each turns off alone. */
    @Test
    void eachStateKindHasItsOwnWrittenKeyFilterLimit() throws Exception {
        for (ConfigOption<Integer> off :
                Arrays.asList(
                        FalconOptions.CACHE_WRITTEN_KEY_FILTER_MAX_KEYS,
                        FalconOptions.CACHE_WRITTEN_KEY_FILTER_MAX_MAPS)) {
            backend.dispose();
            backend = null;
            Configuration config = new Configuration();
            config.set(off, 0);
            open(config);
            backend.getPartitionedState(
                    VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE,
                    new ValueStateDescriptor<>("values", StringSerializer.INSTANCE));
            maps("maps");
            boolean valuesOff = off == FalconOptions.CACHE_WRITTEN_KEY_FILTER_MAX_KEYS;
            assertThat(cache().writtenKeyFilter("values") == null)
                    .as(off.key())
                    .isEqualTo(valuesOff);
            assertThat(cache().writtenKeyFilter("maps") == null)
                    .as(off.key())
                    .isNotEqualTo(valuesOff);
        }
    }

    private ListState<String> lists(String name) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new ListStateDescriptor<>(name, StringSerializer.INSTANCE));
    }

    /**
     * One list per key that keeps growing past the 1 KiB cap (a window join keyed by the window):
     * after its first few adds every add is merged into RocksDB, none is cacheable, and the state
     * goes to RocksDB, so the memory its lists held goes back to the slot, and its written-key
     * filter is dropped. The lists read back whole.
     */
    @Test
    void aListStateWhoseListsOutgrowTheCapGoesToRocksDb() throws Exception {
        ListState<String> state = lists("long-lists");
        for (int op = 0; op < 40 * WINDOW; op++) {
            backend.setCurrentKey(op % 2);
            state.add(String.format("element-%06d-of-a-list-that-keeps-growing", op));
        }
        assertThat(cache().cacheSwitchedOff("long-lists")).isEqualTo(1);
        // No trial rebuilds its written-key filter by scanning (merging) every list.
        assertThat(cache().writtenKeyFilter("long-lists").dropped()).isTrue();
        for (int key = 0; key < 2; key++) {
            backend.setCurrentKey(key);
            int count = 0;
            for (String element : state.get()) {
                assertThat(element)
                        .isEqualTo(
                                String.format(
                                        "element-%06d-of-a-list-that-keeps-growing",
                                        2 * count + key));
                count++;
            }
            assertThat(count).isEqualTo(20 * WINDOW);
        }
    }

    /**
     * More new lists than the cache holds, each added to once and not read while it is cached (a
     * window join whose windows fire long after their rows arrive): each list is put into the
     * cache, evicted and written back, where stock merges it once. The evictions are not cacheable
     * and the state goes to RocksDB; every list reads back whole afterwards.
     */
    @Test
    void aListStateWhoseListsAreEvictedUnreadGoesToRocksDb() throws Exception {
        backend.dispose();
        backend = null;
        Configuration config = new Configuration();
        config.set(FalconOptions.CACHE_SIZE_PER_SUBTASK, MemorySize.parse("16kb"));
        open(config);
        ListState<String> state = lists("evicted-lists");
        int keys = 40 * WINDOW;
        for (int key = 0; key < keys; key++) {
            backend.setCurrentKey(key);
            state.add("row-of-key-" + key);
        }
        assertThat(cache().stats("evicted-lists").evictions()).isGreaterThanOrEqualTo(WINDOW);
        assertThat(cache().cacheSwitchedOff("evicted-lists")).isEqualTo(1);
        for (int key = 0; key < keys; key++) {
            backend.setCurrentKey(key);
            assertThat(state.get()).as("key %d", key).containsExactly("row-of-key-" + key);
        }
    }

    /**
     * Short lists of many keys, each added to a few times, read once and cleared (a window join
     * keyed by the join key): the adds stay in the cache and the state stays cached.
     */
    @Test
    void aListStateOfShortListsStaysCached() throws Exception {
        ListState<String> state = lists("short-lists");
        for (int key = 0; key < 10 * WINDOW; key++) {
            backend.setCurrentKey(key);
            state.add("a" + key);
            state.add("b" + key);
            assertThat(state.get()).containsExactly("a" + key, "b" + key);
            state.clear();
        }
        assertThat(cache().cacheSwitchedOff("short-lists")).isZero();
        assertThat(cache().stats("short-lists").hits()).isGreaterThanOrEqualTo(10L * WINDOW);
    }

    /**
     * Nine operations in ten read user keys of the map over the cap that nobody read before (each a
     * RocksDB lookup, as a join's probe of absent rows is): few of the state's reads are cacheable,
     * which alone would pass as a write-mostly state, but nearly all of its operations are not
     * cacheable, and the state goes to RocksDB.
     */
    @Test
    void aStateOfMostlyMapsOverTheCapGoesToRocksDb() throws Exception {
        MapState<Integer, String> state = maps("oversized");
        fill(state);
        for (int op = 0; op < 40 * WINDOW; op++) {
            if (op % 10 == 0) {
                int key = 1 + op % SMALL_MAPS;
                backend.setCurrentKey(key);
                assertThat(state.get(1)).isEqualTo("small-" + key);
            } else {
                backend.setCurrentKey(OVERSIZED_KEY);
                assertThat(state.get(1_000_000 + op)).isNull();
            }
        }
        assertThat(cache().cacheSwitchedOff("oversized")).isEqualTo(1);
    }

    /**
     * Nine updates in ten (a read, then a write, as a distinct count does) go to ten user keys of
     * the map over the cap: its partial body holds them, so they are cache hits and the state stays
     * cached; RocksDB answers each key once.
     */
    @Test
    void aDistinctCountOnAMapOverTheCapStaysInItsPartialBody() throws Exception {
        MapState<Integer, String> state = maps("distinct");
        fill(state);
        long before = cache().mapStats("distinct").notCachedOps();
        for (int op = 0; op < 40 * WINDOW; op++) {
            if (op % 10 == 0) {
                int key = 1 + op % SMALL_MAPS;
                backend.setCurrentKey(key);
                assertThat(state.get(1)).isEqualTo("small-" + key);
            } else {
                backend.setCurrentKey(OVERSIZED_KEY);
                int hot = (op / 10) % 10; // ten hot user keys fit the 1 KiB partial body
                String value = state.get(hot);
                assertThat(value).isEqualTo("value-of-a-map-over-the-cap-" + hot);
                state.put(hot, value);
            }
        }
        assertThat(cache().cacheSwitchedOff("distinct")).isZero();
        assertThat(cache().mapStats("distinct").notCachedOps() - before)
                .as("reads RocksDB answered")
                .isLessThanOrEqualTo(10);
    }

    /**
     * Writes {@code entriesPerMap} entries into each of {@code maps} maps of a new state {@code
     * name} in a cache of {@link #SMALL_MAPS} entries, then reads each map five times: the first
     * read misses and loads the map, the other four hit. The hit ratio is 0.8, over the 0.75
     * threshold.
     */
    private void readEachMapOnceColdThenFourTimes(String name, int maps, int entriesPerMap)
            throws Exception {
        // A cache of a few maps: each map is written back and evicted before it is read.
        backend.dispose();
        Configuration config = new Configuration();
        config.set(FalconOptions.CACHE_SIZE_PER_SUBTASK, MemorySize.parse("64kb"));
        config.set(FalconOptions.CACHE_ENTRIES_PER_SUBTASK, (long) SMALL_MAPS);
        open(config);
        MapState<Integer, String> state = maps(name);
        for (int key = 1; key <= maps; key++) {
            backend.setCurrentKey(key);
            // A read first loads the map (empty) into the cache, so the writes are cached: a
            // write to a map that is not cached goes to RocksDB and is not cacheable.
            assertThat(state.get(-1)).isNull();
            for (int entry = 0; entry < entriesPerMap; entry++) {
                state.put(entry, "v");
            }
        }
        for (int key = 1; key <= maps; key++) {
            backend.setCurrentKey(key);
            for (int read = 0; read < 5; read++) {
                assertThat(state.get(read % entriesPerMap)).isEqualTo("v");
            }
        }
    }

    /**
     * A miss that loads 40 entries costs a seek and 40 steps where the stock read is one get: it
     * weighs 1 + 40 / 16 misses, the weighed hit ratio is 4 / 7.5 = 0.53, and the state goes to
     * RocksDB although four reads in five hit.
     */
    @Test
    void missesThatLoadLargeMapsWeighMoreThanOneRead() throws Exception {
        readEachMapOnceColdThenFourTimes("large-loads", 8 * WINDOW, 40);
        assertThat(cache().mapStats("large-loads").loadedEntries()).isPositive();
        assertThat(cache().cacheSwitchedOff("large-loads")).isEqualTo(1);
    }

    /** The same reads of maps of two entries: 4 / 5.125 = 0.78, and the state stays cached. */
    @Test
    void missesThatLoadSmallMapsWeighAboutOneRead() throws Exception {
        readEachMapOnceColdThenFourTimes("small-loads", 8 * WINDOW, 2);
        assertThat(cache().mapStats("small-loads").loads()).isGreaterThan(4L * WINDOW);
        assertThat(cache().cacheSwitchedOff("small-loads")).isZero();
    }
}
