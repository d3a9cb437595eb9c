/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconOptions;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
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
import java.util.Collections;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What real states' self-switching counts. A MapState: reads of a map over the cap cost what the
 * stock read costs, so they are left out of the hit ratio (the state is judged by the maps the
 * cache holds), and a state that is mostly such reads still goes to RocksDB. A ValueState: a read
 * the written-key filter answers is a hit, not a miss as well.
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
    @SuppressWarnings("unchecked")
    void setUp() throws Exception {
        env = MockEnvironment.builder().setManagedMemorySize(64L << 20).build();
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(false);
        rocksDb.setDbStoragePath(tmp.toString());
        Configuration config = new Configuration();
        config.set(FalconOptions.CACHE_MAP_STATE_MAX_BYTES_PER_MAP, MemorySize.parse("1kb"));
        config.set(FalconOptions.CACHE_MAP_STATE_BYPASS_HIT_RATIO, 0.75);
        config.set(FalconOptions.CACHE_BYPASS_HIT_RATIO, 0.75);
        config.set(FalconOptions.CACHE_SWITCH_WINDOW, WINDOW);
        config.set(FalconOptions.CACHE_SWITCH_RETRY_OPERATIONS, 1_000_000L);
        backend =
                (AbstractKeyedStateBackend<Integer>)
                        new FalconStateBackend(rocksDb)
                                .configure(config, getClass().getClassLoader())
                                .createKeyedStateBackend(
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

    /**
     * Nine updates in ten (a read, then a write, as a distinct count does) go to the map over the
     * cap: few of the state's reads are cacheable, which alone would pass as a write-mostly state,
     * but nearly all of its operations are not cacheable, and the state goes to RocksDB.
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
                String value = state.get(op % 100);
                assertThat(value).startsWith("value-of-a-map-over-the-cap-");
                state.put(op % 100, value);
            }
        }
        assertThat(cache().cacheSwitchedOff("oversized")).isEqualTo(1);
    }
}
