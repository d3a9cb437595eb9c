/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.it;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackendFactory;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.nativeaccess.CacheStats;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStateToolset;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.CheckpointStorageAccess;
import org.apache.flink.runtime.state.CheckpointStorageLocation;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A keyed job on a MiniCluster whose slots give the cache a small managed-memory budget (so it
 * evicts and writes back dirty entries between checkpoints all the time, and the dirty-byte cap
 * triggers): with failures injected while processing records, in the middle of a checkpoint (its
 * synchronous phase, before Falcon's pre-snapshot flush, after earlier checkpoints' flushes and
 * evictions wrote into RocksDB), in a checkpoint's asynchronous phase (after the keyed backend
 * wrote checkpoint N's dirty entries into RocksDB, before N completes: the restore must drop those
 * writes and go back to the last completed checkpoint) and right after a checkpoint completed, the
 * collected result (exactly-once with checkpointing) equals the failure-free result computed
 * without Flink; and at every checkpoint the cache's accounted bytes are within its quota.
 */
class CacheFailureAndBudgetITCase {

    static final int RECORDS = 20_000;
    static final int KEYS = 2_000;
    static final long DIRTY_CAP = 16 << 10;

    static final AtomicLong PROCESSED = new AtomicLong();
    static final AtomicBoolean FAILED_IN_RECORD = new AtomicBoolean();
    static final AtomicBoolean FAILED_IN_CHECKPOINT = new AtomicBoolean();
    static final AtomicBoolean FAILED_AFTER_CHECKPOINT = new AtomicBoolean();

    /** The keyed task thread whose {@link #ASYNC_FAIL_CHECKPOINT} fails asynchronously. */
    static volatile Thread asyncFailThread;

    static final AtomicLong ASYNC_FAIL_CHECKPOINT = new AtomicLong(-1);

    /** Dirty entries the cache held just before its pre-snapshot flush of that checkpoint. */
    static final AtomicLong ASYNC_FAIL_DIRTY_ENTRIES = new AtomicLong();

    static final AtomicBoolean FAILED_IN_ASYNC_PHASE = new AtomicBoolean();

    /** The checkpoint whose asynchronous phase did fail (the armed one at that moment). */
    static final AtomicLong FAILED_ASYNC_CHECKPOINT = new AtomicLong(-1);

    /** The checkpoint the keyed operator restored from first after the asynchronous failure. */
    static final AtomicLong RESTORED_AFTER_ASYNC_FAILURE = new AtomicLong(-1);

    static final Set<Long> COMPLETED_CHECKPOINTS = ConcurrentHashMap.newKeySet();
    static final AtomicInteger CHECKPOINTS_CHECKED = new AtomicInteger();
    static final AtomicLong MAX_EVICTIONS = new AtomicLong();
    static final Queue<String> VIOLATIONS = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void reset() {
        PROCESSED.set(0);
        FAILED_IN_RECORD.set(false);
        FAILED_IN_CHECKPOINT.set(false);
        FAILED_AFTER_CHECKPOINT.set(false);
        asyncFailThread = null;
        ASYNC_FAIL_CHECKPOINT.set(-1);
        ASYNC_FAIL_DIRTY_ENTRIES.set(0);
        FAILED_IN_ASYNC_PHASE.set(false);
        FAILED_ASYNC_CHECKPOINT.set(-1);
        RESTORED_AFTER_ASYNC_FAILURE.set(-1);
        COMPLETED_CHECKPOINTS.clear();
        CHECKPOINTS_CHECKED.set(0);
        MAX_EVICTIONS.set(0);
        VIOLATIONS.clear();
    }

    @Test
    void failuresAnywhereGiveTheFailureFreeResultAndTheCacheStaysInItsQuota() throws Exception {
        Configuration config = new Configuration();
        config.setString(
                StateBackendOptions.STATE_BACKEND, FalconStateBackendFactory.class.getName());
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16mb"));
        config.set(FalconOptions.CACHE_MANAGED_MEMORY_SHARE, 0.01); // ~82 KiB per slot
        config.set(FalconOptions.CACHE_MAX_DIRTY_BYTES, new MemorySize(DIRTY_CAP));

        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(2, config);
        env.enableCheckpointing(100);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(10, 0));
        // A failed asynchronous phase must fail the job over (not just skip the checkpoint).
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(0);
        env.getCheckpointConfig().setCheckpointStorage(new AsyncFailingStorage());
        DataStream<String> out =
                env.fromSequence(0, RECORDS - 1)
                        .setParallelism(1)
                        .map(CacheFailureAndBudgetITCase::throttle)
                        .setParallelism(1)
                        .keyBy(v -> v % KEYS, Types.LONG)
                        .transform("counter", Types.STRING, new CheckingOperator(new Counter()))
                        .uid("counter");
        List<String> lines = new ArrayList<>();
        try (CloseableIterator<String> it = out.executeAndCollect("failures")) {
            it.forEachRemaining(lines::add);
        }
        Collections.sort(lines);

        assertThat(FAILED_IN_RECORD).as("failed while processing a record").isTrue();
        assertThat(FAILED_IN_CHECKPOINT).as("failed in the middle of a checkpoint").isTrue();
        assertThat(FAILED_AFTER_CHECKPOINT).as("failed after a checkpoint completed").isTrue();
        assertThat(FAILED_IN_ASYNC_PHASE)
                .as(
                        "failed in the asynchronous phase (last armed: checkpoint %s)",
                        ASYNC_FAIL_CHECKPOINT)
                .isTrue();
        assertThat(ASYNC_FAIL_DIRTY_ENTRIES.get())
                .as("dirty entries flushed into RocksDB for the failed checkpoint")
                .isPositive();
        assertThat(COMPLETED_CHECKPOINTS)
                .as("the checkpoint whose asynchronous phase failed never completed")
                .doesNotContain(FAILED_ASYNC_CHECKPOINT.get());
        // The job failed over and went back to an earlier checkpoint, although RocksDB had
        // already received the failed checkpoint's dirty entries.
        assertThat(RESTORED_AFTER_ASYNC_FAILURE.get())
                .as("checkpoint restored after the asynchronous failure")
                .isPositive()
                .isLessThan(FAILED_ASYNC_CHECKPOINT.get());
        assertThat(lines).isEqualTo(expected());
        assertThat(CHECKPOINTS_CHECKED.get()).isGreaterThan(3);
        assertThat(MAX_EVICTIONS.get()).as("the small budget made the cache evict").isPositive();
        assertThat(VIOLATIONS).isEmpty();
    }

    private static Long throttle(Long v) throws InterruptedException {
        if (v % 200 == 0) {
            Thread.sleep(5);
        }
        return v;
    }

    /** Per key: {@code key,count} for every record, and {@code key,sum=...} after its last one. */
    static List<String> expected() {
        List<String> lines = new ArrayList<>();
        int perKey = RECORDS / KEYS;
        for (long k = 0; k < KEYS; k++) {
            long sum = 0;
            for (int i = 0; i < perKey; i++) {
                lines.add(k + "," + (i + 1));
                sum += k + (long) i * KEYS;
            }
            lines.add(k + ",sum=" + sum);
        }
        Collections.sort(lines);
        return lines;
    }

    /** Two cached ValueStates per key; fails once at record 7000 (of all attempts). */
    static final class Counter extends KeyedProcessFunction<Long, Long, String> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Long> count;
        private transient ValueState<Long> sum;

        @Override
        public void open(Configuration parameters) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
        }

        @Override
        public void processElement(Long value, Context ctx, Collector<String> out)
                throws Exception {
            if (PROCESSED.incrementAndGet() == 7_000
                    && FAILED_IN_RECORD.compareAndSet(false, true)) {
                throw new RuntimeException("injected failure while processing a record");
            }
            long c = count.value() == null ? 1 : count.value() + 1;
            long s = (sum.value() == null ? 0 : sum.value()) + value;
            count.update(c);
            sum.update(s);
            out.collect(ctx.getCurrentKey() + "," + c);
            if (c == RECORDS / KEYS) {
                out.collect(ctx.getCurrentKey() + ",sum=" + s);
            }
        }
    }

    /**
     * Checks the cache against its quota and the dirty-byte cap in each checkpoint's synchronous
     * phase, fails once in the middle of a checkpoint (that phase) and once after one completed.
     */
    static final class CheckingOperator extends KeyedProcessOperator<Long, Long, String> {
        private static final long serialVersionUID = 1L;

        CheckingOperator(KeyedProcessFunction<Long, Long, String> function) {
            super(function);
        }

        /** The synchronous phase of every checkpoint, just before the keyed backend's. */
        @Override
        public void snapshotState(StateSnapshotContext context) throws Exception {
            super.snapshotState(context);
            long checkpointId = context.getCheckpointId();
            KeyedStateBackend<?> backend = getKeyedStateBackend();
            if (backend instanceof FalconKeyedStateBackend) {
                HotStateCacheManager<?> cache =
                        ((FalconKeyedStateBackend<?>) backend).getHotStateCache();
                if (cache == null) {
                    VIOLATIONS.add("no cache");
                } else {
                    CacheStats total = cache.totalStats();
                    long quota = cache.quota().bytes();
                    if (quota <= 0 || total.bytes() > quota) {
                        VIOLATIONS.add(
                                "checkpoint "
                                        + checkpointId
                                        + ": "
                                        + total.bytes()
                                        + " > "
                                        + quota);
                    }
                    if (total.dirtyBytes() > DIRTY_CAP) {
                        VIOLATIONS.add(
                                "checkpoint " + checkpointId + ": dirty " + total.dirtyBytes());
                    }
                    MAX_EVICTIONS.accumulateAndGet(total.evictions(), Math::max);
                    CHECKPOINTS_CHECKED.incrementAndGet();
                    // Arms the asynchronous failure of this checkpoint on this task: the keyed
                    // backend's snapshot, which runs after this hook, first writes these dirty
                    // entries into RocksDB; then its asynchronous phase fails (AsyncFailingStorage)
                    // and the job goes back to a completed checkpoint (there is one by then, so
                    // the restore really has RocksDB state older than what was just flushed).
                    // Armed again at every later checkpoint until the failure fires: another
                    // injected failure can abort the armed checkpoint before its asynchronous
                    // phase opens a stream, and checkpoint ids are never reused.
                    if (PROCESSED.get() > 9_000
                            && FAILED_IN_CHECKPOINT.get()
                            && !COMPLETED_CHECKPOINTS.isEmpty()
                            && total.dirtyEntries() > 0
                            && !FAILED_IN_ASYNC_PHASE.get()) {
                        ASYNC_FAIL_DIRTY_ENTRIES.set(total.dirtyEntries());
                        asyncFailThread = Thread.currentThread();
                        ASYNC_FAIL_CHECKPOINT.set(checkpointId);
                    }
                }
            } else {
                VIOLATIONS.add("not a Falcon backend: " + backend);
            }
            if (PROCESSED.get() > 3_000 && FAILED_IN_CHECKPOINT.compareAndSet(false, true)) {
                throw new RuntimeException("injected failure in the middle of a checkpoint");
            }
        }

        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            super.initializeState(context);
            if (FAILED_IN_ASYNC_PHASE.get()) {
                RESTORED_AFTER_ASYNC_FAILURE.compareAndSet(
                        -1, context.getRestoredCheckpointId().orElse(0));
            }
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            super.notifyCheckpointComplete(checkpointId);
            COMPLETED_CHECKPOINTS.add(checkpointId);
            if (PROCESSED.get() > 12_000 && FAILED_AFTER_CHECKPOINT.compareAndSet(false, true)) {
                throw new RuntimeException("injected failure after a checkpoint completed");
            }
        }
    }

    /**
     * The JobManager's checkpoint storage, except that the streams of one checkpoint of one task
     * fail: the checkpoint {@link CheckingOperator} armed, on the task thread that armed it. A task
     * resolves its stream factory on its own task thread before the synchronous phase and opens the
     * streams in the asynchronous phase, so this failure comes after the keyed backend's
     * synchronous phase (Falcon's flush and RocksDB's native checkpoint) and before the checkpoint
     * can complete.
     */
    static final class AsyncFailingStorage implements CheckpointStorage {
        private static final long serialVersionUID = 1L;
        private final JobManagerCheckpointStorage inner = new JobManagerCheckpointStorage();

        @Override
        public CompletedCheckpointStorageLocation resolveCheckpoint(String pointer)
                throws IOException {
            return inner.resolveCheckpoint(pointer);
        }

        @Override
        public CheckpointStorageAccess createCheckpointStorage(JobID jobId) throws IOException {
            CheckpointStorageAccess access = inner.createCheckpointStorage(jobId);
            return new CheckpointStorageAccess() {
                @Override
                public boolean supportsHighlyAvailableStorage() {
                    return access.supportsHighlyAvailableStorage();
                }

                @Override
                public boolean hasDefaultSavepointLocation() {
                    return access.hasDefaultSavepointLocation();
                }

                @Override
                public CompletedCheckpointStorageLocation resolveCheckpoint(String pointer)
                        throws IOException {
                    return access.resolveCheckpoint(pointer);
                }

                @Override
                public void initializeBaseLocationsForCheckpoint() throws IOException {
                    access.initializeBaseLocationsForCheckpoint();
                }

                @Override
                public CheckpointStorageLocation initializeLocationForCheckpoint(long id)
                        throws IOException {
                    return access.initializeLocationForCheckpoint(id);
                }

                @Override
                public CheckpointStorageLocation initializeLocationForSavepoint(
                        long id, @Nullable String pointer) throws IOException {
                    return access.initializeLocationForSavepoint(id, pointer);
                }

                @Override
                public CheckpointStreamFactory resolveCheckpointStorageLocation(
                        long id, CheckpointStorageLocationReference reference) throws IOException {
                    CheckpointStreamFactory factory =
                            access.resolveCheckpointStorageLocation(id, reference);
                    Thread owner = Thread.currentThread();
                    return new CheckpointStreamFactory() {
                        @Override
                        public CheckpointStateOutputStream createCheckpointStateOutputStream(
                                CheckpointedStateScope scope) throws IOException {
                            if (id == ASYNC_FAIL_CHECKPOINT.get()
                                    && owner == asyncFailThread
                                    && FAILED_IN_ASYNC_PHASE.compareAndSet(false, true)) {
                                FAILED_ASYNC_CHECKPOINT.set(id);
                                throw new IOException(
                                        "injected failure in the asynchronous phase of checkpoint "
                                                + id);
                            }
                            return factory.createCheckpointStateOutputStream(scope);
                        }

                        @Override
                        public boolean canFastDuplicate(
                                StreamStateHandle handle, CheckpointedStateScope scope)
                                throws IOException {
                            return factory.canFastDuplicate(handle, scope);
                        }

                        @Override
                        public List<StreamStateHandle> duplicate(
                                List<StreamStateHandle> handles, CheckpointedStateScope scope)
                                throws IOException {
                            return factory.duplicate(handles, scope);
                        }
                    };
                }

                @Override
                public CheckpointStateOutputStream createTaskOwnedStateStream() throws IOException {
                    return access.createTaskOwnedStateStream();
                }

                @Override
                public CheckpointStateToolset createTaskOwnedCheckpointStateToolset() {
                    return access.createTaskOwnedCheckpointStateToolset();
                }
            };
        }
    }
}
