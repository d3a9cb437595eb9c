/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import org.apache.flink.contrib.streaming.state.FalconRocksDBAccess;
import org.apache.flink.contrib.streaming.state.FalconTimerQueueAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.runtime.state.InternalPriorityQueue;
import org.apache.flink.runtime.state.InternalPriorityQueueTestBase;

import java.util.ArrayList;
import java.util.List;

/**
 * Flink's own priority-queue test base on Flink's RocksDB timer queue with Falcon's {@link
 * HeldTimers} (a stock RocksDB keyed backend's column family), holding every element. {@link
 * HeldTimersSteppingAsidePriorityQueueTest} runs it with a capacity of 3, so that most tests step
 * aside mid-way. The base is JUnit 4 up to Flink 1.19 and JUnit 5 in 1.20: the cleanup method
 * carries both annotations.
 */
public class HeldTimersPriorityQueueTest extends InternalPriorityQueueTestBase {

    private final StockQueueBackends backends = new StockQueueBackends();
    private final List<HeldTimers> queues = new ArrayList<>();

    /** The most elements held. */
    protected int capacity() {
        return 1 << 20;
    }

    @Override
    protected InternalPriorityQueue<TestElement> newPriorityQueue(int initialCapacity) {
        try {
            RocksDBKeyedStateBackend<Long> stock = backends.create(KEY_GROUP_RANGE);
            // Registers the column family, as Falcon's backend does before building its queue.
            stock.create("queue", TestElementSerializer.INSTANCE);
            HeldTimers held =
                    new HeldTimers(
                            "queue",
                            FalconRocksDBAccess.db(stock),
                            stock.getWriteOptions(),
                            FalconRocksDBAccess.columnFamily(stock, "queue"),
                            stock.getKeyGroupRange(),
                            capacity());
            queues.add(held);
            return FalconTimerQueueAccess.create(
                    stock, "queue", TestElementSerializer.INSTANCE, held::cacheFor, held.writes());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Override
    protected boolean testSetSemanticsAgainstDuplicateElements() {
        return true;
    }

    @org.junit.After
    @org.junit.jupiter.api.AfterEach
    public void closeBackends() throws Exception {
        for (HeldTimers held : queues) {
            held.dispose();
        }
        queues.clear();
        backends.closeAll();
    }
}
