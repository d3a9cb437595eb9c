/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.it;

import io.falconstate.flink.FalconStateBackendFactory;
import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobgraph.SavepointConfigOptions;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Rescaling with the cache on a small budget (state split between cache and RocksDB at every
 * checkpoint): a keyed job with two cached ValueStates runs at parallelism 2 and is stopped, is
 * restored at parallelism 1 from its retained checkpoint and stopped again, and is restored at
 * parallelism 2 and runs to the end. Every key's final count and sum (emitted only after the last
 * input, so only by the last run) equal those of an unscaled failure-free run.
 */
class CacheRescaleITCase {

    static final int RECORDS = 24_000;
    static final int KEYS = 1_500;

    /** Records processed in the current run; a run stops itself after STOP_AFTER of them. */
    static final AtomicLong PROCESSED = new AtomicLong();

    static final AtomicInteger CHECKPOINTS_IN_RUN = new AtomicInteger();

    /** The smallest data record the current run processed: above 0 when it restored. */
    static final AtomicLong FIRST_RECORD = new AtomicLong();

    static volatile long stopAfter;
    static final Queue<String> RESULT = new ConcurrentLinkedQueue<>();

    private ScratchDirectory scratch;

    @BeforeEach
    void createScratch() throws IOException {
        scratch = new ScratchDirectory("falcon-rescale");
    }

    @AfterEach
    void deleteScratch() throws Exception {
        scratch.close();
    }

    @Test
    void rescaledTwoToOneToTwoFromRetainedCheckpointsGivesTheUnscaledResult() throws Exception {
        Path checkpoints = scratch.path().resolve("checkpoints");
        Path first = stoppedRun(2, null, checkpoints.resolve("run1"), 3_000);
        Path second = stoppedRun(1, first, checkpoints.resolve("run2"), 3_000);
        long secondStart = FIRST_RECORD.get();
        RESULT.clear();
        run(2, second, checkpoints.resolve("run3"), Long.MAX_VALUE);
        long thirdStart = FIRST_RECORD.get();

        // Each restored run resumed where the previous run's checkpoint left off.
        assertThat(secondStart).isPositive();
        assertThat(thirdStart).isGreaterThan(secondStart);
        assertThat(thirdStart).isLessThan(RECORDS);

        List<String> result = new ArrayList<>(RESULT);
        Collections.sort(result);
        assertThat(result).isEqualTo(expected());
    }

    /** Runs until the run stops itself after a completed checkpoint; returns that checkpoint. */
    private Path stoppedRun(int parallelism, Path restoreFrom, Path checkpointDir, long records)
            throws Exception {
        assertThatThrownBy(() -> run(parallelism, restoreFrom, checkpointDir, records))
                .hasStackTraceContaining("stopping the run");
        Optional<Path> latest = latestCheckpoint(checkpointDir);
        assertThat(latest).as("a retained checkpoint of the run").isPresent();
        return latest.get();
    }

    private static void run(int parallelism, Path restoreFrom, Path checkpointDir, long stop)
            throws Exception {
        PROCESSED.set(0);
        CHECKPOINTS_IN_RUN.set(0);
        FIRST_RECORD.set(Long.MAX_VALUE);
        stopAfter = stop;
        Configuration config = new Configuration();
        config.setString(
                StateBackendOptions.STATE_BACKEND, FalconStateBackendFactory.class.getName());
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir.toUri().toString());
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16mb"));
        config.set(FalconOptions.CACHE_MANAGED_MEMORY_SHARE, 0.01);
        config.set(FalconOptions.CACHE_MAX_DIRTY_BYTES, MemorySize.parse("8kb"));
        if (restoreFrom != null) {
            config.set(SavepointConfigOptions.SAVEPOINT_PATH, restoreFrom.toUri().toString());
        }
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(parallelism, config);
        env.setMaxParallelism(128);
        env.enableCheckpointing(100);
        env.getCheckpointConfig()
                .setExternalizedCheckpointCleanup(
                        CheckpointConfig.ExternalizedCheckpointCleanup.RETAIN_ON_CANCELLATION);
        env.setRestartStrategy(RestartStrategies.noRestart());
        env.fromSequence(0, RECORDS + KEYS - 1)
                .setParallelism(1)
                .uid("source")
                .map(CacheRescaleITCase::throttle)
                .setParallelism(1)
                .uid("throttle")
                .keyBy(v -> key(v), Types.LONG)
                .process(new Counter())
                .uid("counter")
                .addSink(new ResultSink())
                .setParallelism(1)
                .uid("sink");
        env.execute("rescale p=" + parallelism);
    }

    /** Records below RECORDS are data; the last KEYS records are one end marker per key. */
    static long key(long v) {
        return v < RECORDS ? v % KEYS : v - RECORDS;
    }

    private static Long throttle(Long v) throws InterruptedException {
        if (v % 5 == 0) {
            Thread.sleep(1);
        }
        return v;
    }

    static Optional<Path> latestCheckpoint(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .map(Path::getParent)
                    .filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .max(
                            (a, b) ->
                                    Integer.compare(
                                            Integer.parseInt(
                                                    a.getFileName().toString().substring(4)),
                                            Integer.parseInt(
                                                    b.getFileName().toString().substring(4))));
        }
    }

    static List<String> expected() {
        List<String> lines = new ArrayList<>();
        for (long k = 0; k < KEYS; k++) {
            long count = 0;
            long sum = 0;
            for (long v = k; v < RECORDS; v += KEYS) {
                count++;
                sum += v;
            }
            lines.add(k + ":" + count + ":" + sum);
        }
        Collections.sort(lines);
        return lines;
    }

    /** Counts and sums per key in cached ValueStates; emits them at the key's end marker. */
    static final class Counter extends KeyedProcessFunction<Long, Long, String>
            implements CheckpointListener {
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
            if (value >= RECORDS) {
                out.collect(
                        ctx.getCurrentKey()
                                + ":"
                                + orZero(count.value())
                                + ":"
                                + orZero(sum.value()));
                return;
            }
            FIRST_RECORD.accumulateAndGet(value, Math::min);
            if (PROCESSED.incrementAndGet() > stopAfter && CHECKPOINTS_IN_RUN.get() >= 2) {
                throw new RuntimeException("stopping the run");
            }
            count.update(orZero(count.value()) + 1);
            sum.update(orZero(sum.value()) + value);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            CHECKPOINTS_IN_RUN.incrementAndGet();
        }

        private static long orZero(Long v) {
            return v == null ? 0 : v;
        }
    }

    static final class ResultSink implements SinkFunction<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void invoke(String value, Context context) {
            RESULT.add(value);
        }
    }
}
