/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.DifferentialBackends;
import io.falconstate.flink.DifferentialTestBase;
import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.nativeaccess.CacheStats;

import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.internal.InternalListState;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of ListState operations as window operators and joins make them -- adds to lists
 * nobody wrote, to cached lists and to lists only RocksDB holds, {@code addAll}, {@code update},
 * reads, clears, namespace merges, snapshots and restores -- against Flink's stock {@code
 * RocksDBListState}, step by step: the same lists read, and after every flush the same values in
 * RocksDB. Some elements are kilobytes, a few larger than the tiny cache (64 KiB): lists outgrow
 * it, leave it, and their adds go to RocksDB as merges. Run with a tiny cache, a roomy one, and a
 * self-switching threshold that sends the state to RocksDB and back every few dozen operations, and
 * with lists capped at 1 KiB.
 */
class ListStateDifferentialTest extends DifferentialTestBase {

    private static final String STATE = "diff-list";
    private static final ListStateDescriptor<String> DESCRIPTOR =
            new ListStateDescriptor<>(STATE, StringSerializer.INSTANCE);

    /** One side of the comparison: a keyed backend and its list state. */
    private final class Side {
        final boolean falcon;
        final boolean tiny;
        final boolean switching;
        final boolean shortLists;
        AbstractKeyedStateBackend<Integer> kb;
        InternalListState<Integer, Integer, String> list;

        Side(boolean falcon, boolean tiny, boolean switching, boolean shortLists) throws Exception {
            this.falcon = falcon;
            this.tiny = tiny;
            this.switching = switching;
            this.shortLists = shortLists;
            open(Collections.emptyList());
        }

        @SuppressWarnings("unchecked")
        void open(Collection<KeyedStateHandle> restore) throws Exception {
            kb =
                    DifferentialBackends.keyed(
                            falcon ? falconBackend() : DifferentialBackends.stock(tmp),
                            falcon ? falconEnv : stockEnv,
                            IntSerializer.INSTANCE,
                            restore);
            list =
                    (InternalListState<Integer, Integer, String>)
                            kb.getOrCreateKeyedState(IntSerializer.INSTANCE, DESCRIPTOR);
            if (falcon) {
                assertThat(list).isInstanceOf(CachedListState.class);
            }
        }

        private org.apache.flink.runtime.state.StateBackend falconBackend() {
            Configuration config = new Configuration();
            config.set(FalconOptions.CACHE_LIST_STATE_ENABLED, true);
            if (tiny) {
                CachedBackends.tinyCache(config);
            }
            if (shortLists) {
                config.set(
                        FalconOptions.CACHE_LIST_STATE_MAX_BYTES_PER_LIST, MemorySize.parse("1kb"));
            }
            if (switching) {
                config.set(FalconOptions.CACHE_BYPASS_HIT_RATIO, 0.99);
                config.set(FalconOptions.CACHE_SWITCH_WINDOW, 16);
                config.set(FalconOptions.CACHE_SWITCH_RETRY_OPERATIONS, 40L);
            }
            return DifferentialBackends.falcon(tmp, config);
        }

        void select(int key, int namespace) {
            kb.setCurrentKey(key);
            list.setCurrentNamespace(namespace);
        }

        List<String> rocksDbContents() throws Exception {
            return DifferentialBackends.rocksDbContents(kb, STATE);
        }
    }

    @ParameterizedTest(name = "tiny cache {0}, self-switching {1}, lists of 1 kb {2}, seed {3}")
    @CsvSource({
        "true, false, false, 1",
        "true, false, false, 2",
        "false, false, false, 3",
        "false, false, true, 6",
        "true, true, false, 4",
        "false, true, false, 5"
    })
    void everyOperationMatchesStock(boolean tiny, boolean switching, boolean shortLists, long seed)
            throws Exception {
        Side stock = new Side(false, tiny, false, false);
        Side falcon = new Side(true, tiny, switching, shortLists);
        Random rng = new Random(seed);
        long[] evictionsNotCachedMerged = new long[3];
        try {
            for (int step = 0; step < 6_000; step++) {
                String what = "seed " + seed + " step " + step;
                int key = rng.nextInt(60);
                int namespace = rng.nextInt(5);
                stock.select(key, namespace);
                falcon.select(key, namespace);
                int op = rng.nextInt(100);
                if (op < 35) {
                    String element = element(rng, step);
                    stock.list.add(element);
                    falcon.list.add(element);
                } else if (op < 40) {
                    List<String> elements = elements(rng, step, 1 + rng.nextInt(3));
                    stock.list.addAll(elements);
                    falcon.list.addAll(elements);
                } else if (op < 68) {
                    assertThat(falcon.list.getInternal())
                            .as(what)
                            .isEqualTo(stock.list.getInternal());
                } else if (op < 73) {
                    List<String> elements = elements(rng, step, rng.nextInt(3));
                    stock.list.update(elements);
                    falcon.list.update(elements);
                } else if (op < 85) {
                    stock.list.clear();
                    falcon.list.clear();
                    assertThat(falcon.list.get()).as(what + " after clear").isNull();
                } else if (op < 92) {
                    List<Integer> sources = new ArrayList<>();
                    for (int i = rng.nextInt(3); i >= 0; i--) {
                        sources.add(rng.nextInt(5));
                    }
                    stock.list.mergeNamespaces(namespace, sources);
                    falcon.list.mergeNamespaces(namespace, sources);
                    stock.select(key, namespace);
                    falcon.select(key, namespace);
                    assertThat(falcon.list.getInternal())
                            .as(what + " after merging " + sources)
                            .isEqualTo(stock.list.getInternal());
                } else if (op < 99) {
                    assertThat(falcon.rocksDbContents())
                            .as(what + ": RocksDB after a flush")
                            .isEqualTo(stock.rocksDbContents());
                } else {
                    KeyedStateHandle stockHandle = DifferentialBackends.snapshot(stock.kb, step);
                    KeyedStateHandle falconHandle = DifferentialBackends.snapshot(falcon.kb, step);
                    count(falcon, evictionsNotCachedMerged);
                    stock.kb.dispose();
                    falcon.kb.dispose();
                    stock.open(Collections.singletonList(stockHandle));
                    falcon.open(Collections.singletonList(falconHandle));
                }
            }
            for (int key = 0; key < 60; key++) {
                for (int namespace = 0; namespace < 5; namespace++) {
                    stock.select(key, namespace);
                    falcon.select(key, namespace);
                    assertThat(falcon.list.getInternal())
                            .as("seed %d key %d namespace %d at the end", seed, key, namespace)
                            .isEqualTo(stock.list.getInternal());
                }
            }
            assertThat(falcon.rocksDbContents()).isEqualTo(stock.rocksDbContents());
            count(falcon, evictionsNotCachedMerged);
            if (tiny) {
                assertThat(evictionsNotCachedMerged[0]).as("evictions").isPositive();
                assertThat(evictionsNotCachedMerged[1])
                        .as("lists larger than the cache, written past it")
                        .isPositive();
            }
            if (tiny || shortLists) {
                assertThat(evictionsNotCachedMerged[2])
                        .as("adds merged into RocksDB, their lists not cached")
                        .isPositive();
            }
        } finally {
            stock.kb.dispose();
            falcon.kb.dispose();
        }
    }

    /**
     * A merge into a namespace whose key is longer than any key built before (the key buffer grows
     * while the target key is built) finds the same lists as stock.
     */
    @org.junit.jupiter.api.Test
    @SuppressWarnings("unchecked")
    void mergeIntoANamespaceLongerThanAnyKeyBefore() throws Exception {
        AbstractKeyedStateBackend<Integer> stock =
                DifferentialBackends.keyed(
                        DifferentialBackends.stock(tmp),
                        stockEnv,
                        IntSerializer.INSTANCE,
                        Collections.emptyList());
        Configuration config = new Configuration();
        config.set(FalconOptions.CACHE_LIST_STATE_ENABLED, true);
        AbstractKeyedStateBackend<Integer> falcon =
                DifferentialBackends.keyed(
                        DifferentialBackends.falcon(tmp, config),
                        falconEnv,
                        IntSerializer.INSTANCE,
                        Collections.emptyList());
        try {
            StringBuilder longName = new StringBuilder();
            for (int i = 0; i < 5000; i++) {
                longName.append((char) ('a' + i % 26));
            }
            List<List<String>> merged = new ArrayList<>();
            for (AbstractKeyedStateBackend<Integer> kb : Arrays.asList(stock, falcon)) {
                InternalListState<Integer, String, String> list =
                        (InternalListState<Integer, String, String>)
                                kb.getOrCreateKeyedState(StringSerializer.INSTANCE, DESCRIPTOR);
                kb.setCurrentKey(7);
                list.setCurrentNamespace("a");
                list.add("a1");
                list.setCurrentNamespace("b");
                list.add("b1");
                list.mergeNamespaces(longName.toString(), Arrays.asList("a", "b"));
                list.setCurrentNamespace(longName.toString());
                merged.add(list.getInternal());
            }
            assertThat(merged.get(0)).containsExactlyInAnyOrder("a1", "b1");
            assertThat(merged.get(1)).isEqualTo(merged.get(0));
        } finally {
            stock.dispose();
            falcon.dispose();
        }
    }

    /**
     * Mostly a few bytes, one in twenty a few kilobytes, one in two hundred larger than the tiny
     * cache, some empty.
     */
    private static String element(Random rng, int step) {
        int kind = rng.nextInt(200);
        if (kind < 10) {
            return "";
        }
        if (kind < 21) {
            StringBuilder big = new StringBuilder();
            for (int i = kind == 20 ? 70_000 : 2000 + rng.nextInt(3000); i > 0; i--) {
                big.append((char) ('a' + (i + step) % 26));
            }
            return big.toString();
        }
        return "e" + step + (kind % 3 == 0 ? ",with,delimiters" : "");
    }

    private static List<String> elements(Random rng, int step, int count) {
        List<String> elements = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            elements.add(element(rng, step));
        }
        return elements;
    }

    /** Adds the cache's evictions, writes it did not hold and merged adds so far to the totals. */
    private static void count(Side falcon, long[] totals) {
        HotStateCacheManager<Integer> cache =
                ((FalconKeyedStateBackend<Integer>) falcon.kb).getHotStateCache();
        CacheStats stats = cache.stats(STATE);
        totals[0] += stats.evictions();
        totals[1] += stats.notCached();
        totals[2] += cache.mergedAdds(STATE);
    }
}
