/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.jmh;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.cache.HotStateCacheManager;

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
 * and no fixed dirty cap, they stay dirty in the cache until written back or until the cap from the
 * write-back pause target sends the coldest back; for stock RocksDB they sit in the memtable). The
 * asynchronous part runs after the measurement, then its files are discarded. One measured snapshot
 * per iteration (single shot).
 *
 * <p>{@code intervalMs} 0: the updates come right before the barrier (the first checkpoint of a
 * job, or a barrier that nobody could see coming). Otherwise the updates are spread evenly over
 * that interval and barriers come at its rhythm, as in a job checkpointing every {@code
 * intervalMs}: Falcon's pre-barrier write-back (state.backend.falcon.cache.pre-barrier-lead) can
 * work before the barrier. Each Falcon shot prints a {@code PHASES} line: write-back, hash memtable
 * flush and RocksDB's part of the synchronous phase, and the bytes written back ahead of the
 * barrier.
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

    /** 0: updates right before the barrier; else the checkpoint interval they are spread over. */
    @Param({"0"})
    public int intervalMs;

    /** Updates between two looks at the clock in the paced mode. */
    private static final int PACE_CHUNK = 500;

    private KeyedBackends backends;
    private AbstractKeyedStateBackend<Long> keyed;
    private ValueState<byte[]> state;
    private Long[] keys;
    private FsCheckpointStreamFactory streamFactory;
    private long checkpointId;
    private int round;
    private RunnableFuture<SnapshotResult<KeyedStateHandle>> pending;
    private long lastBarrier;

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
        if (intervalMs > 0) {
            // Two paced intervals, so that the rhythm is known before the first measured barrier.
            for (int i = 0; i < 2; i++) {
                makeDirty();
                snapshot();
                finishPending();
            }
        }
    }

    @Setup(Level.Iteration)
    public void makeDirty() throws Exception {
        byte[] value = KeySequence.value(++round);
        if (intervalMs == 0) {
            for (int i = 0; i < dirty; i++) {
                keyed.setCurrentKey(keys[i]);
                state.update(value);
            }
            return;
        }
        // Evenly over the interval since the last barrier, then wait for the next one.
        long intervalNanos = intervalMs * 1_000_000L;
        for (int i = 0; i < dirty; i++) {
            if (i % PACE_CHUNK == 0) {
                sleepUntil(lastBarrier + intervalNanos * i / dirty);
            }
            keyed.setCurrentKey(keys[i]);
            state.update(value);
        }
        sleepUntil(lastBarrier + intervalNanos);
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long wait;
        while ((wait = nanoTime - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    @Benchmark
    public Object snapshot() throws Exception {
        lastBarrier = System.nanoTime();
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
        if (keyed instanceof FalconKeyedStateBackend) {
            HotStateCacheManager<?> cache = ((FalconKeyedStateBackend<?>) keyed).getHotStateCache();
            if (cache != null) {
                System.out.printf(
                        "PHASES writeBackMs=%.1f memtableFlushMs=%.1f rocksDbMs=%.1f"
                                + " preBarrierBytes=%d dirtyCapMiB=%.1f%n",
                        cache.lastFlushNanos() / 1e6,
                        cache.lastCheckpointMemtableFlushNanos() / 1e6,
                        cache.lastCheckpointRocksDbSyncNanos() / 1e6,
                        cache.lastPreBarrierBytes(),
                        cache.dirtyCapBytes() / 1048576.0);
            }
        }
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
