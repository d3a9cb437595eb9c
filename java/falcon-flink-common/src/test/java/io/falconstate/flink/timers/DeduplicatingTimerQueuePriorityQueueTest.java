/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import org.apache.flink.runtime.state.InternalPriorityQueue;
import org.apache.flink.runtime.state.InternalPriorityQueueTestBase;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;

/**
 * Flink's own priority-queue test base on a {@link DeduplicatingTimerQueue} in front of Flink's
 * RocksDB queue (a stock RocksDB keyed backend's), with a known set of 4 elements so that it starts
 * over often. The base is JUnit 4 up to Flink 1.19 and JUnit 5 in 1.20: the cleanup method carries
 * both annotations.
 */
public class DeduplicatingTimerQueuePriorityQueueTest extends InternalPriorityQueueTestBase {

    private final StockQueueBackends backends = new StockQueueBackends();

    @Override
    protected InternalPriorityQueue<TestElement> newPriorityQueue(int initialCapacity) {
        try {
            KeyGroupedInternalPriorityQueue<TestElement> rocksDbQueue =
                    backends.create(KEY_GROUP_RANGE)
                            .create("queue", TestElementSerializer.INSTANCE);
            return new DeduplicatingTimerQueue<>(
                    rocksDbQueue, TestElementSerializer.INSTANCE.duplicate(), 4);
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
        backends.closeAll();
    }
}
