/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import io.falconstate.flink.DifferentialBackends;
import io.falconstate.flink.DifferentialTestBase;
import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.log.FalconLog;

import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.IntValueSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.contrib.streaming.state.TuningTestAccess;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.heap.KeyGroupPartitionedPriorityQueue;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.apache.flink.types.IntValue;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of timer queue operations -- add (mostly of timers already there, as window
 * operators do), remove, poll, peek, isEmpty, size, iteration, snapshots and restores -- on a
 * Falcon backend and on Flink's stock RocksDB backend, step by step: the same answers and the same
 * bytes in the timers' column family. The key is one mutable object the caller overwrites for every
 * timer, as window TVF aggregations do. Run with the known set's default capacity and with a
 * capacity of a few timers (the set starts over all the time), with the timers held on the heap
 * (written back at snapshots, before reads of the column family, and ahead of expected barriers,
 * mid-firing too), held up to a few dozen (the queue steps aside mid-run) and not held.
 */
class TimerQueueDifferentialTest extends DifferentialTestBase {

    private static final String QUEUE = "_timer_state/event_diff";
    private static final TimerSerializer<IntValue, Integer> TIMERS =
            new TimerSerializer<>(IntValueSerializer.INSTANCE, IntSerializer.INSTANCE);

    private final List<AbstractKeyedStateBackend<?>> opened = new ArrayList<>();

    @AfterEach
    void disposeBackends() {
        for (AbstractKeyedStateBackend<?> kb : opened) {
            kb.dispose();
        }
    }

    private StateBackend backend(boolean falcon, Configuration config) {
        return falcon ? DifferentialBackends.falcon(tmp, config) : DifferentialBackends.stock(tmp);
    }

    private AbstractKeyedStateBackend<IntValue> keyed(
            StateBackend backend, MockEnvironment env, Collection<KeyedStateHandle> restore)
            throws Exception {
        AbstractKeyedStateBackend<IntValue> kb =
                DifferentialBackends.keyed(backend, env, IntValueSerializer.INSTANCE, restore);
        opened.add(kb);
        return kb;
    }

    /** One side: a keyed backend, its timer queue and the key object it reuses. */
    private final class Side {
        final boolean falcon;
        final Configuration config;
        final IntValue reusedKey = new IntValue();
        AbstractKeyedStateBackend<IntValue> kb;
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<IntValue, Integer>> queue;

        Side(boolean falcon, Configuration config) throws Exception {
            this.falcon = falcon;
            this.config = config;
            open(Collections.emptyList());
        }

        void open(Collection<KeyedStateHandle> restore) throws Exception {
            kb = keyed(backend(falcon, config), falcon ? falconEnv : stockEnv, restore);
            queue = kb.create(QUEUE, TIMERS);
            if (falcon && config.get(FalconOptions.TIMERS_DEDUP_CAPACITY) > 0) {
                assertThat(queue).isInstanceOf(DeduplicatingTimerQueue.class);
            }
        }

        TimerHeapInternalTimer<IntValue, Integer> timer(long timestamp, int key, int namespace) {
            reusedKey.setValue(key);
            return new TimerHeapInternalTimer<>(timestamp, reusedKey, namespace);
        }

        /** The column family's bytes, after flushing Flink's write batch (iterating does). */
        List<String> rocksDbContents() throws Exception {
            iterated();
            return TuningTestAccess.dump(DifferentialBackends.rocksDb(kb), QUEUE);
        }

        List<String> iterated() throws Exception {
            List<String> all = new ArrayList<>();
            try (CloseableIterator<TimerHeapInternalTimer<IntValue, Integer>> it =
                    queue.iterator()) {
                while (it.hasNext()) {
                    all.add(it.next().toString());
                }
            }
            return all;
        }

        /** What the cache's pacer has the backend do ahead of an expected barrier. */
        void writeBackAheadOfBarrier() {
            if (kb instanceof FalconKeyedStateBackend) {
                ((FalconKeyedStateBackend<?>) kb).timerQueues().writeBack();
            }
        }

        KeyedStateHandle snapshot(long id) throws Exception {
            return DifferentialBackends.snapshot(kb, id);
        }
    }

    @ParameterizedTest(name = "known-set capacity {0}, held capacity {1}, seed {2}")
    @CsvSource({
        "65536, 200000, 1",
        "65536, 200000, 2",
        "4, 200000, 3",
        "1, 0, 4",
        "64, 0, 5",
        "0, 200000, 6",
        "0, 60, 7",
        "16384, 45, 8"
    })
    void everyOperationMatchesStock(int capacity, int heldCapacity, long seed) throws Exception {
        Configuration falconConfig = new Configuration();
        falconConfig.set(FalconOptions.TIMERS_DEDUP_CAPACITY, capacity);
        falconConfig.set(FalconOptions.TIMERS_HELD_CAPACITY, heldCapacity);
        Side stock = new Side(false, new Configuration());
        Side falcon = new Side(true, falconConfig);
        Random rng = new Random(seed);
        long now = 0;
        for (int step = 0; step < 8_000; step++) {
            String what = "seed " + seed + " step " + step;
            int op = rng.nextInt(100);
            if (op < 60) {
                // Mostly timers already registered: few keys, windows ahead of "now".
                long timestamp = now + 10 * (1 + rng.nextInt(4));
                int key = rng.nextInt(40);
                int namespace = rng.nextInt(2);
                boolean stockChanged = stock.queue.add(stock.timer(timestamp, key, namespace));
                boolean falconChanged = falcon.queue.add(falcon.timer(timestamp, key, namespace));
                assertThat(falconChanged).as(what).isEqualTo(stockChanged);
            } else if (op < 70) {
                long timestamp = now + 10 * (1 + rng.nextInt(4));
                int key = rng.nextInt(40);
                int namespace = rng.nextInt(2);
                boolean stockChanged = stock.queue.remove(stock.timer(timestamp, key, namespace));
                boolean falconChanged =
                        falcon.queue.remove(falcon.timer(timestamp, key, namespace));
                assertThat(falconChanged).as(what).isEqualTo(stockChanged);
            } else if (op < 85) {
                // Time advances: fire what is due, as the timer service does.
                now += 5;
                while (true) {
                    TimerHeapInternalTimer<IntValue, Integer> head = stock.queue.peek();
                    assertThat(String.valueOf(falcon.queue.peek()))
                            .as(what)
                            .isEqualTo(String.valueOf(head));
                    if (head == null || head.getTimestamp() > now) {
                        break;
                    }
                    assertThat(String.valueOf(falcon.queue.poll()))
                            .as(what)
                            .isEqualTo(String.valueOf(stock.queue.poll()));
                    if (rng.nextInt(16) == 0) {
                        falcon.writeBackAheadOfBarrier(); // mid-firing, as the pacer may
                    }
                }
            } else if (op < 90) {
                assertThat(falcon.queue.isEmpty()).as(what).isEqualTo(stock.queue.isEmpty());
                assertThat(falcon.queue.size()).as(what).isEqualTo(stock.queue.size());
            } else if (op < 92) {
                assertThat(falcon.iterated()).as(what).isEqualTo(stock.iterated());
            } else if (op < 94) {
                assertThat(falcon.rocksDbContents()).as(what).isEqualTo(stock.rocksDbContents());
            } else if (op >= 95) {
                falcon.writeBackAheadOfBarrier();
            } else if (op == 94) {
                KeyedStateHandle stockHandle = stock.snapshot(step);
                KeyedStateHandle falconHandle = falcon.snapshot(step);
                stock.kb.dispose();
                falcon.kb.dispose();
                opened.remove(stock.kb);
                opened.remove(falcon.kb);
                // Each side restores the other's snapshot: the bytes are the same.
                stock.open(Collections.singletonList(falconHandle));
                falcon.open(Collections.singletonList(stockHandle));
                assertThat(falcon.iterated()).as(what).isEqualTo(stock.iterated());
            }
        }
        assertThat(falcon.rocksDbContents()).isEqualTo(stock.rocksDbContents());
        assertThat(stock.queue.size()).as("timers left at the end").isPositive();
    }

    @Test
    void repeatedAddsAreAnsweredWithoutRocksDb() throws Exception {
        Configuration config = new Configuration();
        Side falcon = new Side(true, config);
        for (int i = 0; i < 100; i++) {
            falcon.queue.add(falcon.timer(1_000L, i % 10, 0));
        }
        DeduplicatingTimerQueue<?> queue = (DeduplicatingTimerQueue<?>) falcon.queue;
        assertThat(queue.skippedAdds()).isEqualTo(90);
        assertThat(queue.knownTimers()).isEqualTo(10);
        assertThat(falcon.queue.size()).isEqualTo(10);
        // A fired timer is registered again: it must reach RocksDB.
        assertThat(falcon.queue.poll()).isNotNull();
        assertThat(queue.knownTimers()).isEqualTo(9);
        assertThat(falcon.queue.size()).isEqualTo(9);
        for (int i = 0; i < 10; i++) {
            falcon.queue.add(falcon.timer(1_000L, i, 0));
        }
        assertThat(falcon.queue.size()).isEqualTo(10);
        assertThat(queue.skippedAdds()).isEqualTo(99);
    }

    /**
     * A timer registered and fired between two snapshots never reaches RocksDB; one alive at a
     * snapshot is in RocksDB after it, and one fired after that is deleted at the next.
     */
    @Test
    void heldTimersReachRocksDbOnlyAtSnapshots() throws Exception {
        Side falcon = new Side(true, new Configuration());
        TimerQueues timers = ((FalconKeyedStateBackend<?>) falcon.kb).timerQueues();
        for (int i = 0; i < 100; i++) {
            falcon.queue.add(falcon.timer(1_000L + i, i, 0));
        }
        assertThat(timers.heldTimers()).isEqualTo(100);
        for (int i = 0; i < 90; i++) {
            assertThat(falcon.queue.poll().getTimestamp()).isEqualTo(1_000L + i);
        }
        assertThat(TuningTestAccess.dump(DifferentialBackends.rocksDb(falcon.kb), QUEUE)).isEmpty();
        assertThat(timers.writtenBack()).isZero();

        falcon.snapshot(1);
        assertThat(TuningTestAccess.dump(DifferentialBackends.rocksDb(falcon.kb), QUEUE))
                .hasSize(10);
        assertThat(timers.writtenBack()).isEqualTo(10);

        // Two of the ten fire, one new timer comes and goes: two deletes at the next snapshot.
        falcon.queue.poll();
        falcon.queue.poll();
        falcon.queue.add(falcon.timer(5_000L, 7, 1));
        assertThat(falcon.queue.remove(falcon.timer(5_000L, 7, 1))).isFalse();
        falcon.snapshot(2);
        assertThat(TuningTestAccess.dump(DifferentialBackends.rocksDb(falcon.kb), QUEUE))
                .hasSize(8);
        assertThat(timers.writtenBack()).isEqualTo(12);
        assertThat(timers.heldTimers()).isEqualTo(8);
    }

    /** Over its capacity a queue writes everything back and works as stock from then on. */
    @Test
    void aQueueOverItsHeldCapacityStepsAside() throws Exception {
        Configuration config = new Configuration();
        config.set(FalconOptions.TIMERS_HELD_CAPACITY, 50);
        Side falcon = new Side(true, config);
        TimerQueues timers = ((FalconKeyedStateBackend<?>) falcon.kb).timerQueues();
        for (int i = 0; i < 50; i++) {
            falcon.queue.add(falcon.timer(1_000L + i, i, 0));
        }
        assertThat(timers.heldTimers()).isEqualTo(50);
        assertThat(TuningTestAccess.dump(DifferentialBackends.rocksDb(falcon.kb), QUEUE)).isEmpty();
        falcon.queue.add(falcon.timer(2_000L, 1, 0));
        assertThat(timers.heldTimers()).isZero();
        // Written through from now on: nothing waits for the snapshot.
        falcon.queue.add(falcon.timer(3_000L, 2, 0));
        assertThat(falcon.rocksDbContents()).hasSize(52);
        assertThat(falcon.queue.size()).isEqualTo(52);
        assertThat(falcon.queue.poll().getTimestamp()).isEqualTo(1_000L);
        assertThat(
                        FalconLog.timersStepAsideLine(
                                QUEUE, 51, "state.backend.falcon.timers.held-capacity (50)"))
                .isEqualTo(
                        "[FALCON] <"
                                + QUEUE
                                + "> timers held: 51 over state.backend.falcon.timers.held-capacity"
                                + " (50); written to RocksDB from now on, as stock");
    }

    @Test
    void offWhenCapacityIsZero() throws Exception {
        Configuration config = new Configuration();
        config.set(FalconOptions.TIMERS_DEDUP_CAPACITY, 0);
        config.set(FalconOptions.TIMERS_HELD_CAPACITY, 0);
        AbstractKeyedStateBackend<IntValue> kb =
                keyed(backend(true, config), falconEnv, Collections.emptyList());
        assertThat(kb).isInstanceOf(FalconKeyedStateBackend.class);
        assertThat(kb.create(QUEUE, TIMERS))
                .isNotInstanceOf(DeduplicatingTimerQueue.class)
                .isInstanceOf(KeyGroupPartitionedPriorityQueue.class);
        assertThat(((FalconKeyedStateBackend<?>) kb).timerQueues().enabled()).isFalse();
    }

    /**
     * With Flink's heap timers the queue keeps timer objects, and with them the key object the
     * operator set: Falcon then tells operators not to reuse key objects, and leaves the queue as
     * Flink made it.
     */
    @Test
    void heapTimersAreLeftAloneAndKeyReuseIsOff() throws Exception {
        Configuration heap = new Configuration();
        heap.set(
                RocksDBOptions.TIMER_SERVICE_FACTORY,
                EmbeddedRocksDBStateBackend.PriorityQueueStateType.HEAP);
        AbstractKeyedStateBackend<IntValue> falconHeap =
                keyed(backend(true, heap), falconEnv, Collections.emptyList());
        assertThat(falconHeap).isInstanceOf(FalconKeyedStateBackend.class);
        assertThat(falconHeap.create(QUEUE, TIMERS)).isNotInstanceOf(DeduplicatingTimerQueue.class);
        assertThat(falconHeap.isSafeToReuseKVState()).isFalse();

        AbstractKeyedStateBackend<IntValue> falconRocksDb =
                keyed(backend(true, new Configuration()), stockEnv, Collections.emptyList());
        assertThat(falconRocksDb).isInstanceOf(FalconKeyedStateBackend.class);
        assertThat(falconRocksDb.isSafeToReuseKVState()).isTrue();
    }
}
