/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.DifferentialBackends;
import io.falconstate.flink.DifferentialTestBase;
import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.internal.InternalMapState;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of every MapState operation -- get, contains, put (null values too), putAll,
 * remove, isEmpty, clear, iteration of entries, keys and values with {@code Iterator.remove} and
 * {@code Entry.setValue} mid-iteration, key and namespace switches, snapshots and restores --
 * against Flink's stock {@code RocksDBMapState}, step by step: the same observable results, and,
 * after every flush, the same bytes in RocksDB. Run with a tiny cache (every map evicted all the
 * time) and a small map cap (many maps over it: partial bodies), with a roomy cache and the same
 * cap (partial bodies that stay), and with a roomy cache; also with a self-switching threshold that
 * sends the state to RocksDB and back every few dozen operations.
 */
class MapStateDifferentialTest extends DifferentialTestBase {

    private static final String STATE = "diff-map";
    private static final MapStateDescriptor<Integer, String> DESCRIPTOR =
            new MapStateDescriptor<>(STATE, IntSerializer.INSTANCE, StringSerializer.INSTANCE);

    private StateBackend falcon(boolean tiny, boolean smallCap, boolean switching) {
        Configuration config = new Configuration();
        if (tiny) {
            CachedBackends.tinyCache(config);
        }
        if (tiny || smallCap) {
            config.set(FalconOptions.CACHE_MAP_STATE_MAX_BYTES_PER_MAP, MemorySize.parse("1kb"));
        }
        if (switching) {
            // Almost every window is low: the state keeps leaving the cache and coming back for
            // trials, mid-iteration too.
            config.set(FalconOptions.CACHE_BYPASS_HIT_RATIO, 0.99);
            config.set(FalconOptions.CACHE_MAP_STATE_BYPASS_HIT_RATIO, 0.99);
            config.set(FalconOptions.CACHE_SWITCH_WINDOW, 16);
            config.set(FalconOptions.CACHE_SWITCH_RETRY_OPERATIONS, 40L);
        }
        return DifferentialBackends.falcon(tmp, config);
    }

    @SuppressWarnings("unchecked")
    private static InternalMapState<Integer, Integer, Integer, String> state(
            AbstractKeyedStateBackend<Integer> kb) throws Exception {
        return (InternalMapState<Integer, Integer, Integer, String>)
                kb.getOrCreateKeyedState(IntSerializer.INSTANCE, DESCRIPTOR);
    }

    /** One side of the comparison: a keyed backend and its map state. */
    private final class Side {
        final boolean falcon;
        final boolean tiny;
        final boolean smallCap;
        final boolean switching;
        AbstractKeyedStateBackend<Integer> kb;
        InternalMapState<Integer, Integer, Integer, String> map;

        Side(boolean falcon, boolean tiny, boolean smallCap, boolean switching) throws Exception {
            this.falcon = falcon;
            this.tiny = tiny;
            this.smallCap = smallCap;
            this.switching = switching;
            open(Collections.emptyList());
        }

        void open(Collection<KeyedStateHandle> restore) throws Exception {
            kb =
                    DifferentialBackends.keyed(
                            falcon
                                    ? falcon(tiny, smallCap, switching)
                                    : DifferentialBackends.stock(tmp),
                            falcon ? falconEnv : stockEnv,
                            IntSerializer.INSTANCE,
                            restore);
            map = state(kb);
            if (falcon) {
                assertThat(map).isInstanceOf(CachedMapState.class);
            }
        }

        List<String> rocksDbContents() throws Exception {
            return DifferentialBackends.rocksDbContents(kb, STATE);
        }

        KeyedStateHandle snapshot(long id) throws Exception {
            return DifferentialBackends.snapshot(kb, id);
        }
    }

    @ParameterizedTest(name = "tiny cache {0}, 1 kb map cap {1}, self-switching {2}, seed {3}")
    @CsvSource({
        "true, true, false, 1",
        "true, true, false, 2",
        "false, false, false, 3",
        "true, true, true, 4",
        "false, false, true, 5",
        "false, true, false, 6",
        "false, true, true, 7"
    })
    void everyOperationMatchesStock(boolean tiny, boolean smallCap, boolean switching, long seed)
            throws Exception {
        Side stock = new Side(false, tiny, smallCap, false);
        Side falcon = new Side(true, tiny, smallCap, switching);
        Random rng = new Random(seed);
        long[] evictionsOverCapLoads = new long[5];
        try {
            for (int step = 0; step < 6_000; step++) {
                if (step % 7 == 0) {
                    // Few maps, so that some grow over the 1 kb cap.
                    int key = rng.nextInt(10);
                    int namespace = rng.nextInt(2);
                    for (Side s : new Side[] {stock, falcon}) {
                        s.kb.setCurrentKey(key);
                        s.map.setCurrentNamespace(namespace);
                    }
                }
                String what = "seed " + seed + " step " + step;
                int op = rng.nextInt(100);
                int userKey = rng.nextInt(70);
                if (op < 30) {
                    String value =
                            rng.nextInt(10) == 0
                                    ? null
                                    : "v" + step + "-" + filler(rng.nextInt(60));
                    stock.map.put(userKey, value);
                    falcon.map.put(userKey, value);
                } else if (op < 40) {
                    assertThat(falcon.map.get(userKey)).as(what).isEqualTo(stock.map.get(userKey));
                } else if (op < 46) {
                    assertThat(falcon.map.contains(userKey))
                            .as(what)
                            .isEqualTo(stock.map.contains(userKey));
                } else if (op < 56) {
                    stock.map.remove(userKey);
                    falcon.map.remove(userKey);
                } else if (op < 60) {
                    assertThat(falcon.map.isEmpty()).as(what).isEqualTo(stock.map.isEmpty());
                } else if (op < 62) {
                    if (rng.nextInt(4) == 0) { // rare: maps must grow over the cap too
                        stock.map.clear();
                        falcon.map.clear();
                    }
                } else if (op < 65) {
                    Map<Integer, String> batch = new HashMap<>();
                    for (int i = 0; i < 5; i++) {
                        batch.put(rng.nextInt(70), "batch" + step + "/" + i);
                    }
                    stock.map.putAll(batch);
                    falcon.map.putAll(batch);
                } else if (op < 85) {
                    long salt = rng.nextLong();
                    assertThat(iterate(falcon.map.iterator(), salt, step))
                            .as(what)
                            .isEqualTo(iterate(stock.map.iterator(), salt, step));
                } else if (op < 90) {
                    List<Integer> keys = new ArrayList<>();
                    falcon.map.keys().forEach(keys::add);
                    List<Integer> stockKeys = new ArrayList<>();
                    stock.map.keys().forEach(stockKeys::add);
                    assertThat(keys).as(what).isEqualTo(stockKeys);
                } else if (op < 94) {
                    List<String> values = new ArrayList<>();
                    falcon.map.values().forEach(values::add);
                    List<String> stockValues = new ArrayList<>();
                    stock.map.values().forEach(stockValues::add);
                    assertThat(values).as(what).isEqualTo(stockValues);
                } else if (op < 99) {
                    assertThat(falcon.rocksDbContents())
                            .as(what + ": RocksDB after a flush")
                            .isEqualTo(stock.rocksDbContents());
                } else {
                    // Snapshot and restore both sides; the same key context afterwards.
                    KeyedStateHandle stockHandle = stock.snapshot(step);
                    KeyedStateHandle falconHandle = falcon.snapshot(step);
                    count(falcon, evictionsOverCapLoads);
                    stock.kb.dispose();
                    falcon.kb.dispose();
                    stock.open(Collections.singletonList(stockHandle));
                    falcon.open(Collections.singletonList(falconHandle));
                    int key = rng.nextInt(10);
                    for (Side s : new Side[] {stock, falcon}) {
                        s.kb.setCurrentKey(key);
                        s.map.setCurrentNamespace(0);
                    }
                }
            }
            assertThat(falcon.rocksDbContents()).isEqualTo(stock.rocksDbContents());
            count(falcon, evictionsOverCapLoads);
            assertThat(evictionsOverCapLoads[2]).as("maps loaded").isPositive();
            if (switching) {
                assertThat(evictionsOverCapLoads[3]).as("times switched off").isGreaterThan(2);
                assertThat(evictionsOverCapLoads[4]).as("operations on RocksDB").isPositive();
            }
            if (tiny) {
                assertThat(evictionsOverCapLoads[0]).as("maps evicted").isPositive();
            }
            if (smallCap) {
                assertThat(evictionsOverCapLoads[1]).as("maps over the cap").isPositive();
            }
        } finally {
            stock.kb.dispose();
            falcon.kb.dispose();
        }
    }

    /**
     * A null value is stored as the stock backend stores it: the null flag alone, without asking
     * the value serializer to write a null (most serializers cannot). Through the cache (a loaded
     * map) and past it (a map not loaded), then both read back.
     */
    @Test
    void nullValuesAreStoredAsStockStoresThem() throws Exception {
        Side stock = new Side(false, false, false, false);
        Side falcon = new Side(true, false, false, false);
        try {
            for (Side s : new Side[] {stock, falcon}) {
                s.kb.setCurrentKey(1);
                s.map.setCurrentNamespace(0);
                assertThat(s.map.get(5)).isNull(); // loads the (empty) map into the cache
                s.map.put(5, null);
                s.map.put(6, "six");
                s.kb.setCurrentKey(2);
                s.map.put(7, null); // not loaded: written through
            }
            assertThat(falcon.rocksDbContents()).isEqualTo(stock.rocksDbContents());
            for (Side s : new Side[] {stock, falcon}) {
                s.kb.setCurrentKey(1);
                assertThat(s.map.contains(5)).isTrue();
                assertThat(s.map.get(5)).isNull();
                s.kb.setCurrentKey(2);
                assertThat(s.map.contains(7)).isTrue();
            }
        } finally {
            stock.kb.dispose();
            falcon.kb.dispose();
        }
    }

    /**
     * Adds the cache's map evictions, maps over the cap, loads, times switched off and operations
     * past the cache so far to the totals.
     */
    private static void count(Side falcon, long[] totals) {
        HotStateCacheManager<Integer> cache =
                ((FalconKeyedStateBackend<Integer>) falcon.kb).getHotStateCache();
        totals[0] += cache.stats(STATE).evictions();
        totals[1] += cache.mapStats(STATE).oversized();
        totals[2] += cache.mapStats(STATE).loads();
        totals[3] += cache.cacheSwitchedOff(STATE);
        totals[4] += cache.directOperations(STATE);
    }

    private static String filler(int n) {
        char[] c = new char[n];
        java.util.Arrays.fill(c, 'x');
        return new String(c);
    }

    /**
     * Walks an iterator to its end: what it returns, with an {@code Iterator.remove} or an {@code
     * Entry.setValue} on some entries (the same ones on both sides: chosen from the key and a
     * salt), and the value an entry reads after that.
     */
    private static List<String> iterate(
            Iterator<Map.Entry<Integer, String>> it, long salt, int step) {
        List<String> seen = new ArrayList<>();
        while (it.hasNext()) {
            Map.Entry<Integer, String> e = it.next();
            long pick = (e.getKey() * 31L + salt) & 7;
            seen.add(e.getKey() + "=" + e.getValue());
            if (pick == 0) {
                it.remove();
                seen.add("removed, reads " + e.getValue());
            } else if (pick == 1) {
                String old = e.setValue("set" + step);
                seen.add("set, was " + old + ", reads " + e.getValue());
            }
        }
        seen.add("past the end: " + it.next());
        return seen;
    }
}
