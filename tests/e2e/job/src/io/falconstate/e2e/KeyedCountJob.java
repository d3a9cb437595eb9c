/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.e2e;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.java.utils.ParameterTool;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.flink.util.Collector;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;

/**
 * The e2e test's job: a keyed running count whose committed output is checkable exactly.
 *
 * <p>A bounded, checkpointed source emits 1..records (throttled, so that the job runs long enough
 * to be killed or stopped mid-run). Records are keyed by {@code n % keys}; per key the job keeps a
 * ValueState count, a ValueState sum and a MapState of counts per residue {@code (n / keys) % 4}
 * and emits one line {@code key,count,sum,mapTotal} per record into a FileSink that commits on
 * checkpoints (exactly once). Whatever the failures, restores and backend switches, a correct run
 * emits for every key exactly the counts 1..c(key) once each, and the line with the last count
 * carries the key's full sum; mapTotal always equals count. tests/e2e/lib/check_counts.py checks
 * that.
 *
 * <p>Arguments: --output DIR --records N --keys K --rate R (records per second per source
 * subtask) --checkpoint-interval MS [--timers true: also registers a
 * processing-time timer per record, to exercise the timer service] [--fail-after N: the first
 * attempt of each keyed subtask throws once it has processed N records and seen a checkpoint
 * complete, so the job restarts from that checkpoint inside the same TaskManager]. Everything
 * else (unaligned checkpoints, timer service, state backend) comes from the configuration.
 */
public final class KeyedCountJob {

    private static final Logger LOG = LoggerFactory.getLogger(KeyedCountJob.class);

    private KeyedCountJob() {}

    public static void main(String[] args) throws Exception {
        ParameterTool params = ParameterTool.fromArgs(args);
        String output = params.getRequired("output");
        long records = params.getLong("records", 100_000L);
        int keys = params.getInt("keys", 1000);
        int rate = params.getInt("rate", 2000);
        long interval = params.getLong("checkpoint-interval", 1000L);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(interval, CheckpointingMode.EXACTLY_ONCE);
        env.getCheckpointConfig().setMinPauseBetweenCheckpoints(interval / 2);
        boolean timers = params.getBoolean("timers", false);
        long failAfter = params.getLong("fail-after", 0L);

        env.fromSource(
                        new NumberSequenceSource(1, records),
                        WatermarkStrategy.noWatermarks(),
                        "sequence")
                .uid("sequence")
                .map(new Throttle(rate))
                .uid("throttle")
                .keyBy(n -> n % keys, Types.LONG)
                .process(new CountPerKey(keys, timers, failAfter))
                .uid("count-per-key")
                .name("count-per-key")
                .sinkTo(
                        FileSink.forRowFormat(
                                        new Path(output), new SimpleStringEncoder<String>("UTF-8"))
                                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                                .build())
                .uid("result-sink")
                .name("result-sink");

        env.execute("falcon-e2e-keyed-count");
    }

    /** Paces each subtask at {@code rate} records per second; passes records through. */
    static final class Throttle extends RichMapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final int rate;
        private transient long start;
        private transient long emitted;

        Throttle(int rate) {
            this.rate = rate;
        }

        @Override
        public void open(Configuration parameters) {
            start = System.nanoTime();
            emitted = 0;
        }

        @Override
        public Long map(Long value) throws Exception {
            emitted++;
            long due = start + emitted * 1_000_000_000L / rate;
            long ahead = due - System.nanoTime();
            if (ahead > 2_000_000L) {
                Thread.sleep(ahead / 1_000_000L);
            }
            return value;
        }
    }

    /** The keyed running count, sum and per-residue counts. */
    static final class CountPerKey extends KeyedProcessFunction<Long, Long, String>
            implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final int keys;
        private final boolean timers;
        private final long failAfter;
        private transient long processed;
        private transient boolean checkpointCompleted;
        private transient boolean timerQueueLogged;
        private transient ValueState<Long> count;
        private transient ValueState<Long> sum;
        private transient MapState<Integer, Long> perResidue;

        CountPerKey(int keys, boolean timers, long failAfter) {
            this.keys = keys;
            this.timers = timers;
            this.failAfter = failAfter;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointCompleted = true;
        }

        @Override
        public void open(Configuration parameters) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
            perResidue =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>("per-residue", Types.INT, Types.LONG));
        }

        @Override
        public void processElement(Long n, Context ctx, Collector<String> out) throws Exception {
            processed++;
            if (failAfter > 0
                    && processed >= failAfter
                    && checkpointCompleted
                    && getRuntimeContext().getAttemptNumber() == 0) {
                throw new IllegalStateException("e2e: injected failure after " + processed);
            }
            long c = orZero(count.value()) + 1;
            long s = orZero(sum.value()) + n;
            count.update(c);
            sum.update(s);
            int residue = (int) ((n / keys) % 4);
            perResidue.put(residue, orZero(perResidue.get(residue)) + 1);
            long mapTotal = 0;
            for (Long v : perResidue.values()) {
                mapTotal += v;
            }
            if (timers) {
                // Coalesced to one timer per key and second; firing does nothing visible.
                long now = ctx.timerService().currentProcessingTime();
                ctx.timerService().registerProcessingTimeTimer(now - now % 1000 + 60_000);
                if (!timerQueueLogged) {
                    timerQueueLogged = true;
                    LOG.info("e2e: processing-time timer queue {}", timerQueue(ctx));
                }
            }
            out.collect(ctx.getCurrentKey() + "," + c + "," + s + "," + mapTotal);
        }

        /**
         * The class of the operator's processing-time timer queue, read by reflection so that the
         * test can tell heap timers (HeapPriorityQueueSet) from RocksDB timers
         * (KeyGroupPartitionedPriorityQueue of RocksDB sets).
         */
        private static String timerQueue(Context ctx) {
            try {
                Object service = field(ctx.timerService(), "internalTimerService");
                Object queue = field(service, "processingTimeTimersQueue");
                return queue.getClass().getSimpleName();
            } catch (ReflectiveOperationException | RuntimeException e) {
                return "unknown (" + e + ")";
            }
        }

        private static Object field(Object target, String name)
                throws ReflectiveOperationException {
            for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
                try {
                    Field f = c.getDeclaredField(name);
                    f.setAccessible(true);
                    return f.get(target);
                } catch (NoSuchFieldException e) {
                    // look in the superclass
                }
            }
            throw new NoSuchFieldException(name);
        }

        private static long orZero(Long value) {
            return value == null ? 0L : value;
        }
    }
}
