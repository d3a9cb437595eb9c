/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.DifferentialBackends;
import io.falconstate.flink.DifferentialTestBase;
import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.internal.InternalValueState;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of ValueState operations as a window aggregate makes them -- reads of (key,
 * slice) pairs nobody wrote, of pairs written into the cache only, of pairs written back, updates,
 * clears, key and namespace switches, snapshots and restores -- against Flink's stock {@code
 * RocksDBValueState}, step by step: the same values read, and after every flush the same bytes in
 * RocksDB. Phases of writes to a few slices alternate with phases of reads over many (a firing),
 * most of them of slices nobody wrote (answered by the written-key filter) and clears of them (no
 * tombstone). Run with a tiny cache (entries evicted and written back all the time), a roomy one,
 * and a self-switching threshold that sends the state to RocksDB and back every few dozen
 * operations.
 */
class ValueStateDifferentialTest extends DifferentialTestBase {

    private static final String STATE = "diff-value";
    private static final ValueStateDescriptor<String> DESCRIPTOR =
            new ValueStateDescriptor<>(STATE, StringSerializer.INSTANCE);

    /** One side of the comparison: a keyed backend and its value state. */
    private final class Side {
        final boolean falcon;
        final boolean tiny;
        final boolean switching;
        AbstractKeyedStateBackend<Integer> kb;
        InternalValueState<Integer, Integer, String> value;

        Side(boolean falcon, boolean tiny, boolean switching) throws Exception {
            this.falcon = falcon;
            this.tiny = tiny;
            this.switching = switching;
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
            value =
                    (InternalValueState<Integer, Integer, String>)
                            kb.getOrCreateKeyedState(IntSerializer.INSTANCE, DESCRIPTOR);
            if (falcon) {
                assertThat(value).isInstanceOf(CachedValueState.class);
            }
        }

        private org.apache.flink.runtime.state.StateBackend falconBackend() {
            Configuration config = new Configuration();
            if (tiny) {
                CachedBackends.tinyCache(config);
            }
            if (switching) {
                config.set(FalconOptions.CACHE_BYPASS_HIT_RATIO, 0.99);
                config.set(FalconOptions.CACHE_SWITCH_WINDOW, 16);
                config.set(FalconOptions.CACHE_SWITCH_RETRY_OPERATIONS, 40L);
            }
            return DifferentialBackends.falcon(tmp, config);
        }

        void select(int key, int slice) {
            kb.setCurrentKey(key);
            value.setCurrentNamespace(slice);
        }

        List<String> rocksDbContents() throws Exception {
            return DifferentialBackends.rocksDbContents(kb, STATE);
        }
    }

    @ParameterizedTest(name = "tiny cache {0}, self-switching {1}, seed {2}")
    @CsvSource({
        "true, false, 1",
        "false, false, 2",
        "false, false, 3",
        "true, true, 4",
        "false, true, 5"
    })
    void everyOperationMatchesStock(boolean tiny, boolean switching, long seed) throws Exception {
        Side stock = new Side(false, tiny, false);
        Side falcon = new Side(true, tiny, switching);
        Random rng = new Random(seed);
        long[] neverWrittenReadsAndEvictions = new long[2];
        try {
            for (int step = 0; step < 6_000; step++) {
                String what = "seed " + seed + " step " + step;
                // Phases of 500 steps: slices 0-2 are written, 3-9 mostly only read (firing).
                boolean firing = (step / 500) % 2 == 1;
                int key = rng.nextInt(300);
                int slice = firing ? rng.nextInt(10) : rng.nextInt(3);
                stock.select(key, slice);
                falcon.select(key, slice);
                int op = rng.nextInt(100);
                if (op < 45) {
                    assertThat(falcon.value.value()).as(what).isEqualTo(stock.value.value());
                } else if (op < (firing ? 55 : 80)) {
                    String v = "v" + step;
                    stock.value.update(v);
                    falcon.value.update(v);
                } else if (op < 96) {
                    stock.value.clear();
                    falcon.value.clear();
                    assertThat(falcon.value.value()).as(what + " after clear").isNull();
                } else if (op < 99) {
                    assertThat(falcon.rocksDbContents())
                            .as(what + ": RocksDB after a flush")
                            .isEqualTo(stock.rocksDbContents());
                } else {
                    KeyedStateHandle stockHandle = DifferentialBackends.snapshot(stock.kb, step);
                    KeyedStateHandle falconHandle = DifferentialBackends.snapshot(falcon.kb, step);
                    count(falcon, neverWrittenReadsAndEvictions);
                    stock.kb.dispose();
                    falcon.kb.dispose();
                    stock.open(Collections.singletonList(stockHandle));
                    falcon.open(Collections.singletonList(falconHandle));
                }
            }
            for (int key = 0; key < 300; key++) {
                for (int slice = 0; slice < 10; slice++) {
                    stock.select(key, slice);
                    falcon.select(key, slice);
                    assertThat(falcon.value.value())
                            .as("seed %d key %d slice %d at the end", seed, key, slice)
                            .isEqualTo(stock.value.value());
                }
            }
            assertThat(falcon.rocksDbContents()).isEqualTo(stock.rocksDbContents());
            count(falcon, neverWrittenReadsAndEvictions);
            assertThat(neverWrittenReadsAndEvictions[0])
                    .as("reads the written-key filter answered")
                    .isPositive();
            if (tiny) {
                assertThat(neverWrittenReadsAndEvictions[1]).as("evictions").isPositive();
            }
        } finally {
            stock.kb.dispose();
            falcon.kb.dispose();
        }
    }

    /** Adds the filter's answers and the cache's evictions so far to the totals. */
    private static void count(Side falcon, long[] totals) {
        HotStateCacheManager<Integer> cache =
                ((FalconKeyedStateBackend<Integer>) falcon.kb).getHotStateCache();
        WrittenKeyFilter filter = cache.writtenKeyFilter(STATE);
        totals[0] += filter == null ? 0 : filter.knownAbsentReads();
        totals[1] += cache.stats(STATE).evictions();
    }
}
