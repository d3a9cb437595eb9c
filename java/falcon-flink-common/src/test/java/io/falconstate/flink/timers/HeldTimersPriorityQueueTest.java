/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import io.falconstate.flink.StateBackendCalls;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.FalconRocksDBAccess;
import org.apache.flink.contrib.streaming.state.FalconTimerQueueAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.InternalPriorityQueue;
import org.apache.flink.runtime.state.InternalPriorityQueueTestBase;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FileUtils;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Flink's own priority-queue test base on Flink's RocksDB timer queue with Falcon's {@link
 * HeldTimers} (a stock RocksDB keyed backend's column family), holding every element. {@link
 * HeldTimersSteppingAsidePriorityQueueTest} runs it with a capacity of 3, so that most tests step
 * aside mid-way. The base is JUnit 4 up to Flink 1.19 and JUnit 5 in 1.20: the cleanup method
 * carries both annotations.
 */
public class HeldTimersPriorityQueueTest extends InternalPriorityQueueTestBase {

    private final List<AbstractKeyedStateBackend<?>> backends = new ArrayList<>();
    private final List<HeldTimers> queues = new ArrayList<>();
    private final List<MockEnvironment> environments = new ArrayList<>();
    private final List<File> directories = new ArrayList<>();

    /** The most elements held. */
    protected int capacity() {
        return 1 << 20;
    }

    @Override
    protected InternalPriorityQueue<TestElement> newPriorityQueue(int initialCapacity) {
        try {
            File dir = Files.createTempDirectory("falcon-held-timers").toFile();
            directories.add(dir);
            EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(false);
            rocksDb.setDbStoragePath(dir.getAbsolutePath());
            MockEnvironment env = MockEnvironment.builder().setManagedMemorySize(32L << 20).build();
            environments.add(env);
            AbstractKeyedStateBackend<Long> kb =
                    StateBackendCalls.keyedBackend(
                            rocksDb.configure(new Configuration(), getClass().getClassLoader()),
                            env,
                            new JobID(),
                            "queue (1/1)#0",
                            LongSerializer.INSTANCE,
                            KEY_GROUP_RANGE.getEndKeyGroup() + 1,
                            KEY_GROUP_RANGE,
                            env.getTaskKvStateRegistry(),
                            TtlTimeProvider.DEFAULT,
                            new UnregisteredMetricsGroup(),
                            Collections.emptyList(),
                            new CloseableRegistry(),
                            1.0);
            backends.add(kb);
            RocksDBKeyedStateBackend<Long> stock = (RocksDBKeyedStateBackend<Long>) kb;
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
        for (AbstractKeyedStateBackend<?> kb : backends) {
            kb.dispose();
        }
        backends.clear();
        for (MockEnvironment env : environments) {
            env.close();
        }
        environments.clear();
        for (File dir : directories) {
            FileUtils.deleteDirectory(dir);
        }
        directories.clear();
    }
}
