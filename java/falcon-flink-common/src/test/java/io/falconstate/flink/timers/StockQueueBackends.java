/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import io.falconstate.flink.StateBackendCalls;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FileUtils;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Stock RocksDB keyed backends (Long keys, each in its own temporary directory and environment) for
 * Flink's priority-queue test base; {@link #closeAll()} disposes them and deletes their files.
 */
final class StockQueueBackends {

    private final List<RocksDBKeyedStateBackend<Long>> backends = new ArrayList<>();
    private final List<MockEnvironment> environments = new ArrayList<>();
    private final List<File> directories = new ArrayList<>();

    /** A new stock RocksDB keyed backend over {@code keyGroups} (max parallelism: its end + 1). */
    RocksDBKeyedStateBackend<Long> create(KeyGroupRange keyGroups) throws Exception {
        File dir = Files.createTempDirectory("falcon-timer-queue").toFile();
        directories.add(dir);
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(false);
        rocksDb.setDbStoragePath(dir.getAbsolutePath());
        MockEnvironment env = MockEnvironment.builder().setManagedMemorySize(32L << 20).build();
        environments.add(env);
        RocksDBKeyedStateBackend<Long> kb =
                (RocksDBKeyedStateBackend<Long>)
                        StateBackendCalls.keyedBackend(
                                rocksDb.configure(new Configuration(), getClass().getClassLoader()),
                                env,
                                new JobID(),
                                "queue (1/1)#0",
                                LongSerializer.INSTANCE,
                                keyGroups.getEndKeyGroup() + 1,
                                keyGroups,
                                env.getTaskKvStateRegistry(),
                                TtlTimeProvider.DEFAULT,
                                new UnregisteredMetricsGroup(),
                                Collections.emptyList(),
                                new CloseableRegistry(),
                                1.0);
        backends.add(kb);
        return kb;
    }

    void closeAll() throws Exception {
        for (RocksDBKeyedStateBackend<Long> kb : backends) {
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
