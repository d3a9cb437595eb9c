/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.lowmem;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.StateBackendCalls;
import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.FalconRocksDBAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FileUtils;

import org.rocksdb.ColumnFamilyHandle;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.RunnableFuture;

/**
 * One run of {@link LowMemoryWorkload} on a fresh keyed backend of one {@link Config}, in a slot
 * with a given managed memory: Long keys, 128 key groups owned by one subtask that takes all of the
 * slot's managed memory, incremental checkpoints to a local directory. Returns the wall time and
 * what RocksDB counted ({@link RocksDbWriteStatistics}).
 */
public final class LowMemoryRun {

    private static final int MAX_PARALLELISM = 128;

    /** The backends and Falcon configurations the low-memory grid compares. */
    public enum Config {
        /** The stock RocksDB backend. */
        ROCKSDB("rocksdb"),
        /** Falcon with every default. */
        DEFAULTS("defaults"),
        /** Falcon without the cache (so by default without the hash memtable). */
        CACHE_OFF("cache-off"),
        /** Falcon's cache with both column-family tunings off. */
        TUNING_OFF("tuning-off"),
        /** Falcon's defaults without the ValueState hash memtable. */
        HASH_OFF("hash-off"),
        /** Falcon's defaults without the MapState range filter. */
        RANGE_OFF("range-off");

        private final String label;

        Config(String label) {
            this.label = label;
        }

        /** The name in RESULT lines and on the command line. */
        public String label() {
            return label;
        }

        public static Config of(String label) {
            for (Config config : values()) {
                if (config.label.equals(label)) {
                    return config;
                }
            }
            throw new IllegalArgumentException("unknown configuration " + label);
        }

        Configuration flinkConfig() {
            Configuration config = new Configuration();
            switch (this) {
                case ROCKSDB:
                case DEFAULTS:
                    break;
                case CACHE_OFF:
                    config.set(FalconOptions.CACHE_ENABLED, false);
                    break;
                case TUNING_OFF:
                    config.set(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE, "false");
                    config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, false);
                    break;
                case HASH_OFF:
                    config.set(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE, "false");
                    break;
                case RANGE_OFF:
                    config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, false);
                    break;
                default:
                    throw new AssertionError(this);
            }
            return config;
        }
    }

    /** What one run measured. */
    public static final class Result {
        public final Config config;
        public final double seconds;
        public final long flushes;
        public final long stallMicros;
        public final long flushedBytes;
        public final String stallCauses;
        public final long checksum;

        Result(
                Config config,
                double seconds,
                long flushes,
                long stallMicros,
                long flushedBytes,
                String stallCauses,
                long checksum) {
            this.config = config;
            this.seconds = seconds;
            this.flushes = flushes;
            this.stallMicros = stallMicros;
            this.flushedBytes = flushedBytes;
            this.stallCauses = stallCauses;
            this.checksum = checksum;
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "%s %.3f s flushes=%d stall_micros=%d flushed_bytes=%d stalls=%s",
                    config.label(),
                    seconds,
                    flushes,
                    stallMicros,
                    flushedBytes,
                    stallCauses);
        }
    }

    private LowMemoryRun() {}

    /**
     * Builds the backend, runs the workload with {@code checkpoints} checkpoints, reads RocksDB's
     * counters, and disposes everything.
     */
    public static Result run(
            Config config,
            long managedMemoryBytes,
            int states,
            long operations,
            int checkpoints,
            long seed)
            throws Exception {
        File dir = Files.createTempDirectory("falcon-lowmem-").toFile();
        RocksDbWriteStatistics statistics = new RocksDbWriteStatistics();
        try (MockEnvironment env =
                new MockEnvironmentBuilder().setManagedMemorySize(managedMemoryBytes).build()) {
            AbstractKeyedStateBackend<Long> backend =
                    createBackend(config, statistics, env, new File(dir, "db"));
            try {
                LowMemoryWorkload workload = new LowMemoryWorkload(backend, states, seed);
                Checkpoints snapshots = new Checkpoints(backend, new File(dir, "checkpoints"));
                long start = System.nanoTime();
                workload.run(operations, checkpoints, snapshots::take);
                double seconds = (System.nanoTime() - start) / 1e9;
                RocksDBKeyedStateBackend<Long> rocksDb = rocksDb(backend);
                List<ColumnFamilyHandle> columnFamilies = new ArrayList<>();
                for (int i = 0; i < states; i++) {
                    columnFamilies.add(
                            FalconRocksDBAccess.columnFamily(
                                    rocksDb, LowMemoryWorkload.stateName(i)));
                }
                return new Result(
                        config,
                        seconds,
                        statistics.flushes(),
                        statistics.stallMicros(),
                        statistics.flushedBytes(),
                        RocksDbWriteStatistics.stallCauses(
                                FalconRocksDBAccess.db(rocksDb), columnFamilies),
                        workload.checksum());
            } finally {
                backend.dispose();
            }
        } finally {
            statistics.close();
            FileUtils.deleteDirectoryQuietly(dir);
        }
    }

    private static AbstractKeyedStateBackend<Long> createBackend(
            Config config, RocksDbWriteStatistics statistics, MockEnvironment env, File dbDir)
            throws Exception {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
        rocksDb.setDbStoragePath(dbDir.getAbsolutePath());
        rocksDb.setRocksDBOptions(statistics);
        ClassLoader cl = LowMemoryRun.class.getClassLoader();
        Configuration flinkConfig = config.flinkConfig();
        StateBackend backend;
        if (config == Config.ROCKSDB) {
            backend = rocksDb.configure(flinkConfig, cl);
        } else {
            flinkConfig.set(FalconOptions.NATIVE_REQUIRED, true);
            backend = new FalconStateBackend(rocksDb).configure(flinkConfig, cl);
        }
        @SuppressWarnings("unchecked")
        AbstractKeyedStateBackend<Long> keyed =
                (AbstractKeyedStateBackend<Long>)
                        StateBackendCalls.keyedBackend(
                                backend,
                                env,
                                new JobID(),
                                "low-memory (1/1)#0",
                                LongSerializer.INSTANCE,
                                MAX_PARALLELISM,
                                new KeyGroupRange(0, MAX_PARALLELISM - 1),
                                env.getTaskKvStateRegistry(),
                                TtlTimeProvider.DEFAULT,
                                new UnregisteredMetricsGroup(),
                                Collections.emptyList(),
                                new CloseableRegistry(),
                                1.0);
        if (config != Config.ROCKSDB && !(keyed instanceof FalconKeyedStateBackend)) {
            keyed.dispose();
            throw new IllegalStateException("Falcon did not build its keyed backend: " + keyed);
        }
        return keyed;
    }

    @SuppressWarnings("unchecked")
    private static RocksDBKeyedStateBackend<Long> rocksDb(AbstractKeyedStateBackend<Long> backend) {
        return backend instanceof FalconKeyedStateBackend
                ? ((FalconKeyedStateBackend<Long>) backend).getRocksDBKeyedStateBackend()
                : (RocksDBKeyedStateBackend<Long>) backend;
    }

    /** Incremental checkpoints, both phases on the calling thread, completed as a job would. */
    private static final class Checkpoints {
        private final AbstractKeyedStateBackend<Long> backend;
        private final FsCheckpointStreamFactory streams;
        private long id;

        Checkpoints(AbstractKeyedStateBackend<Long> backend, File dir) {
            this.backend = backend;
            File shared = new File(dir, "shared");
            shared.mkdirs();
            this.streams =
                    new FsCheckpointStreamFactory(
                            FileSystem.getLocalFileSystem(),
                            new Path(dir.toURI()),
                            new Path(shared.toURI()),
                            20 * 1024,
                            4096);
        }

        void take() throws Exception {
            long checkpointId = ++id;
            RunnableFuture<SnapshotResult<KeyedStateHandle>> pending =
                    backend.snapshot(
                            checkpointId,
                            checkpointId,
                            streams,
                            CheckpointOptions.forCheckpointWithDefaultLocation());
            pending.run();
            pending.get();
            backend.notifyCheckpointComplete(checkpointId);
        }
    }
}
