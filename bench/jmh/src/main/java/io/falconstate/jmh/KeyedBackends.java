/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.jmh;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.StateBackendCalls;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.nativeaccess.CacheStats;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
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
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FileUtils;

import java.io.File;
import java.nio.file.Files;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.RunnableFuture;

/**
 * Builds keyed state backends directly, the way Flink's own state tests and flink-benchmarks do: a
 * {@link MockEnvironment} with managed memory, Long keys, 128 key groups, one subtask owning all of
 * them, managed-memory fraction 1.0.
 */
public final class KeyedBackends implements AutoCloseable {

    public static final int MAX_PARALLELISM = 128;

    /** System property with {@code key=value} pairs (separated by ';') added to every backend. */
    public static final String EXTRA_CONF_PROPERTY = "falcon.bench.conf";

    public final AbstractKeyedStateBackend<Long> backend;
    private final MockEnvironment env;
    private final File dir;
    private final boolean incrementalCheckpoints;
    private FsCheckpointStreamFactory checkpointStreams;
    private long checkpointId;

    /**
     * @param kind {@code rocksdb}, {@code falcon} or {@code heap}
     * @param conf {@code state.backend.*} entries (stock RocksDB options and Falcon's options)
     * @param managedMemoryBytes managed memory of the (mock) slot
     */
    public KeyedBackends(String kind, Map<String, String> conf, long managedMemoryBytes)
            throws Exception {
        dir = Files.createTempDirectory("falcon-jmh-").toFile();
        Configuration config = new Configuration();
        config.setString("state.backend.rocksdb.localdir", new File(dir, "db").getAbsolutePath());
        conf.forEach(config::setString);
        // Extra configuration for every backend of a run, e.g. one of Flink's RocksDB options:
        // -Dfalcon.bench.conf=state.backend.rocksdb.memory.partitioned-index-filters=true[;k=v]
        for (String entry : System.getProperty(EXTRA_CONF_PROPERTY, "").split(";")) {
            int eq = entry.indexOf('=');
            if (eq > 0) {
                config.setString(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
            }
        }
        incrementalCheckpoints = config.get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS);
        ClassLoader cl = KeyedBackends.class.getClassLoader();
        StateBackend stateBackend;
        switch (kind) {
            case "rocksdb":
                stateBackend = new EmbeddedRocksDBStateBackend().configure(config, cl);
                break;
            case "falcon":
                config.setString("state.backend.falcon.native.required", "true");
                stateBackend =
                        new FalconStateBackend(new EmbeddedRocksDBStateBackend())
                                .configure(config, cl);
                break;
            case "heap":
                stateBackend = new HashMapStateBackend().configure(config, cl);
                break;
            default:
                throw new IllegalArgumentException("unknown backend " + kind);
        }
        env = new MockEnvironmentBuilder().setManagedMemorySize(managedMemoryBytes).build();
        // Through the test seam: the call's shape differs between Flink minors (parameter object
        // since 1.19).
        backend =
                StateBackendCalls.keyedBackend(
                        stateBackend,
                        env,
                        new JobID(),
                        "op",
                        LongSerializer.INSTANCE,
                        MAX_PARALLELISM,
                        new KeyGroupRange(0, MAX_PARALLELISM - 1),
                        env.getTaskKvStateRegistry(),
                        TtlTimeProvider.DEFAULT,
                        new UnregisteredMetricsGroup(),
                        Collections.emptyList(),
                        new CloseableRegistry(),
                        1.0);
        if (kind.equals("falcon") && !(backend instanceof FalconKeyedStateBackend)) {
            throw new IllegalStateException("Falcon did not build its keyed backend: " + backend);
        }
    }

    /** The RocksDB keyed backend (stock, or the one inside Falcon); null for the heap backend. */
    @SuppressWarnings("unchecked")
    public RocksDBKeyedStateBackend<Long> rocksDb() {
        if (backend instanceof FalconKeyedStateBackend) {
            return ((FalconKeyedStateBackend<Long>) backend).getRocksDBKeyedStateBackend();
        }
        if (backend instanceof RocksDBKeyedStateBackend) {
            return (RocksDBKeyedStateBackend<Long>) backend;
        }
        return null;
    }

    /**
     * One line of Falcon's cache counters (hits, misses, evictions, write-backs) for the bench log,
     * so a run shows whether a "100%" cache really served every access from memory; null for the
     * other backends.
     */
    @SuppressWarnings("unchecked")
    public String cacheCounters() {
        if (!(backend instanceof FalconKeyedStateBackend)) {
            return null;
        }
        HotStateCacheManager<Long> cache =
                ((FalconKeyedStateBackend<Long>) backend).getHotStateCache();
        if (cache == null) {
            return "no cache";
        }
        CacheStats s = cache.totalStats();
        return String.format(
                "hits=%d absentHits=%d misses=%d bypassed=%d puts=%d evictions=%d"
                        + " dirtyWriteBacks=%d recordsWrittenBack=%d entries=%d bytes=%d"
                        + " dirtyBytes=%d",
                s.hits(),
                s.absentHits(),
                s.misses(),
                s.bypassedGets(),
                s.puts(),
                s.evictions(),
                s.dirtyWriteBacks(),
                cache.recordsWrittenBack(),
                s.entries(),
                s.bytes(),
                s.dirtyBytes());
    }

    public File dir() {
        return dir;
    }

    /** A checkpoint stream factory writing under {@link #dir()}, as a TaskManager's would. */
    public FsCheckpointStreamFactory checkpointStreams() {
        if (checkpointStreams == null) {
            File checkpoints = new File(dir, "checkpoints");
            File shared = new File(checkpoints, "shared");
            shared.mkdirs();
            checkpointStreams =
                    new FsCheckpointStreamFactory(
                            FileSystem.getLocalFileSystem(),
                            new Path(checkpoints.toURI()),
                            new Path(shared.toURI()),
                            20 * 1024,
                            4096);
        }
        return checkpointStreams;
    }

    /**
     * One checkpoint of the backend, both phases on the calling thread (the synchronous one, then
     * the asynchronous upload), completed and confirmed as a job would. A full checkpoint is
     * discarded afterwards; an incremental one is kept, since the next one references its files.
     */
    public void checkpoint() throws Exception {
        long id = ++checkpointId;
        RunnableFuture<SnapshotResult<KeyedStateHandle>> pending =
                backend.snapshot(
                        id,
                        id,
                        checkpointStreams(),
                        CheckpointOptions.forCheckpointWithDefaultLocation());
        pending.run();
        SnapshotResult<KeyedStateHandle> result = pending.get();
        backend.notifyCheckpointComplete(id);
        if (result != null && !incrementalCheckpoints) {
            result.discardState();
        }
    }

    /** How many {@link #checkpoint()}s were taken. */
    public long checkpoints() {
        return checkpointId;
    }

    @Override
    public void close() throws Exception {
        try {
            backend.dispose();
            env.close();
        } finally {
            FileUtils.deleteDirectoryQuietly(dir);
        }
    }
}
