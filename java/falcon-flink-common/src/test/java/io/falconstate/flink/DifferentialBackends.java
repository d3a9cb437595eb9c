/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.contrib.streaming.state.TuningTestAccess;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.concurrent.FutureUtils;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * The two sides of a differential test against stock: Falcon over RocksDB and Flink's stock RocksDB
 * backend, each a keyed backend of one subtask over all key groups, with snapshots and the raw
 * contents of a state's column family.
 */
public final class DifferentialBackends {

    public static final int MAX_PARALLELISM = 128;

    private DifferentialBackends() {}

    /** Falcon configured with {@code config}, its RocksDB files under {@code tmp}. */
    public static StateBackend falcon(Path tmp, Configuration config) {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(false);
        rocksDb.setDbStoragePath(tmp.resolve("falcon-" + UUID.randomUUID()).toString());
        return new FalconStateBackend(rocksDb)
                .configure(config, DifferentialBackends.class.getClassLoader());
    }

    /** Flink's RocksDB backend with its defaults, its files under {@code tmp}. */
    public static StateBackend stock(Path tmp) {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(false);
        rocksDb.setDbStoragePath(tmp.resolve("stock-" + UUID.randomUUID()).toString());
        return rocksDb.configure(new Configuration(), DifferentialBackends.class.getClassLoader());
    }

    /** A backend of one subtask over all key groups, restored from {@code restore}. */
    public static <K> AbstractKeyedStateBackend<K> keyed(
            StateBackend backend,
            MockEnvironment env,
            TypeSerializer<K> keySerializer,
            Collection<KeyedStateHandle> restore)
            throws Exception {
        return StateBackendCalls.keyedBackend(
                backend,
                env,
                new JobID(),
                "diff (1/1)#0",
                keySerializer,
                MAX_PARALLELISM,
                new KeyGroupRange(0, MAX_PARALLELISM - 1),
                env.getTaskKvStateRegistry(),
                TtlTimeProvider.DEFAULT,
                new UnregisteredMetricsGroup(),
                new ArrayList<>(restore),
                new CloseableRegistry(),
                1.0);
    }

    public static RocksDBKeyedStateBackend<?> rocksDb(AbstractKeyedStateBackend<?> kb) {
        return kb instanceof FalconKeyedStateBackend
                ? ((FalconKeyedStateBackend<?>) kb).getRocksDBKeyedStateBackend()
                : (RocksDBKeyedStateBackend<?>) kb;
    }

    /** Every record of {@code stateName}'s column family, after Falcon wrote its cache back. */
    public static List<String> rocksDbContents(AbstractKeyedStateBackend<?> kb, String stateName)
            throws Exception {
        if (kb instanceof FalconKeyedStateBackend) {
            ((FalconKeyedStateBackend<?>) kb).flushAll();
        }
        return TuningTestAccess.dump(rocksDb(kb), stateName);
    }

    /** A full snapshot, as a checkpoint takes it. */
    public static KeyedStateHandle snapshot(AbstractKeyedStateBackend<?> kb, long id)
            throws Exception {
        return FutureUtils.runIfNotDoneAndGet(
                        kb.snapshot(
                                id,
                                id,
                                new MemCheckpointStreamFactory(64 << 20),
                                CheckpointOptions.forCheckpointWithDefaultLocation()))
                .getJobManagerOwnedSnapshot();
    }
}
