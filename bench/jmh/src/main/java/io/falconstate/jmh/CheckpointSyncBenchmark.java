/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.jmh;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Duration of the synchronous phase of a checkpoint ({@code snapshot(...)} until it returns the
 * RunnableFuture of the asynchronous part) with 0, 10k and 100k dirty entries.
 *
 * <p>100k keys (64-byte values) are written and checkpointed once in setup. Before every measured
 * snapshot, {@code dirty} distinct keys are updated (for Falcon, with a cache holding all 100k keys
 * and no dirty cap, they stay dirty in the cache, so the synchronous phase writes them back; for
 * stock RocksDB they sit in the memtable). The asynchronous part runs after the measurement, then
 * its files are discarded. One measured snapshot per iteration (single shot).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class CheckpointSyncBenchmark {

    public static final int KEYS = 100_000;

    @Param({"rocksdb", "falcon"})
    public String backend;

    @Param({"0", "10000", "100000"})
    public int dirty;

    /** true: incremental checkpoints (the sync phase flushes the memtable); false: full. */
    @Param({"true", "false"})
    public boolean incremental;

    private KeyedBackends backends;
    private AbstractKeyedStateBackend<Long> keyed;
    private ValueState<byte[]> state;
    private Long[] keys;
    private FsCheckpointStreamFactory streamFactory;
    private long checkpointId;
    private int round;
    private RunnableFuture<SnapshotResult<KeyedStateHandle>> pending;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Map<String, String> conf = new HashMap<>();
        if (backend.equals("falcon")) {
            conf.putAll(ValueStateBenchmark.falconCache(KEYS, 100));
            conf.put("state.backend.falcon.cache.max-dirty-bytes", "0");
        }
        conf.put("state.backend.incremental", Boolean.toString(incremental));
        backends = new KeyedBackends(backend, conf, ValueStateBenchmark.MANAGED_MEMORY);
        keyed = backends.backend;
        state =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>("value", BytePrimitiveArraySerializer.INSTANCE));
        keys = KeySequence.boxedKeys(KEYS);
        for (int i = 0; i < KEYS; i++) {
            keyed.setCurrentKey(keys[i]);
            state.update(KeySequence.value(i));
        }
        streamFactory = backends.checkpointStreams();
        // A first checkpoint: afterwards nothing is dirty and the memtable is empty (incremental).
        snapshot();
        finishPending();
    }

    @Setup(Level.Iteration)
    public void makeDirty() throws Exception {
        byte[] value = KeySequence.value(++round);
        for (int i = 0; i < dirty; i++) {
            keyed.setCurrentKey(keys[i]);
            state.update(value);
        }
    }

    @Benchmark
    public Object snapshot() throws Exception {
        pending =
                keyed.snapshot(
                        ++checkpointId,
                        checkpointId,
                        streamFactory,
                        CheckpointOptions.forCheckpointWithDefaultLocation());
        return pending;
    }

    @TearDown(Level.Iteration)
    public void finishPending() throws Exception {
        if (pending != null) {
            pending.run();
            SnapshotResult<KeyedStateHandle> result = pending.get();
            keyed.notifyCheckpointComplete(checkpointId);
            if (result != null && !incremental) {
                // Full snapshots are self-contained; incremental ones keep shared files that
                // the next checkpoint references (the temp dir is deleted at the end).
                result.discardState();
            }
            pending = null;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        backends.close();
    }
}
