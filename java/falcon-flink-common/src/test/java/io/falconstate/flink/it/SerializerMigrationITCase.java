/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.it;

import io.falconstate.flink.FalconStateBackendFactory;
import io.falconstate.flink.FalconTestAccess;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.runtime.testutils.statemigration.TestType;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.SourceFunction;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * State schema evolution end to end: a job runs with the V1 serializer of its ValueState and of its
 * MapState's user values, stops with a savepoint or leaves a retained checkpoint, and the upgraded
 * job (V2 serializers, which Flink migrates every stored value to on restore) goes on from it on
 * Falcon with its defaults, where both ValueStates of the job are tuned (Long keys) and cached.
 * Every record checks the state it finds against what the records before it wrote. Sources: a
 * Falcon canonical savepoint, a stock canonical savepoint and a Falcon checkpoint.
 */
class SerializerMigrationITCase {

    private static final int KEYS = 100;
    private static final int RECORDS = 1_000;

    private static final AtomicLong PROCESSED = new AtomicLong();
    private static final Queue<String> MISMATCHES = new ConcurrentLinkedQueue<>();

    private static ScratchDirectory scratch;
    private static MiniClusterWithClientResource cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        scratch = new ScratchDirectory("falcon-migration");
        Configuration config = new Configuration();
        config.setString(
                StateBackendOptions.STATE_BACKEND, FalconStateBackendFactory.class.getName());
        cluster =
                new MiniClusterWithClientResource(
                        new MiniClusterResourceConfiguration.Builder()
                                .setConfiguration(config)
                                .setNumberTaskManagers(1)
                                .setNumberSlotsPerTaskManager(2)
                                .build());
        cluster.before();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        cluster.after();
        scratch.close();
    }

    @Test
    void upgradedSerializersRestoreFromFalconSavepoint() throws Exception {
        String savepoint = firstRun(true, Stop.CANONICAL_SAVEPOINT);
        upgradedRunChecksEveryRecord(savepoint);
    }

    @Test
    void upgradedSerializersRestoreFromStockSavepoint() throws Exception {
        String savepoint = firstRun(false, Stop.CANONICAL_SAVEPOINT);
        upgradedRunChecksEveryRecord(savepoint);
    }

    @Test
    void upgradedSerializersRestoreFromFalconCheckpoint() throws Exception {
        String checkpoint = firstRun(true, Stop.RETAINED_CHECKPOINT);
        upgradedRunChecksEveryRecord(checkpoint);
    }

    private enum Stop {
        CANONICAL_SAVEPOINT,
        RETAINED_CHECKPOINT
    }

    /** Records 0..RECORDS-1 with the V1 serializers; returns the savepoint or checkpoint path. */
    private static String firstRun(boolean onFalcon, Stop stop) throws Exception {
        StreamExecutionEnvironment env = environment();
        if (!onFalcon) {
            env.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        JobGraph job = job(env, 0, false);
        ClusterClient<?> client = cluster.getClusterClient();
        JobID id = client.submitJob(job).get();
        awaitProcessed(client, id);
        if (stop == Stop.CANONICAL_SAVEPOINT) {
            return client.cancelWithSavepoint(
                            id,
                            scratch.path().resolve("savepoints").toUri().toString(),
                            SavepointFormatType.CANONICAL)
                    .get(2, TimeUnit.MINUTES);
        }
        String checkpoint = cluster.getMiniCluster().triggerCheckpoint(id).get(2, TimeUnit.MINUTES);
        client.cancel(id).get(2, TimeUnit.MINUTES);
        return checkpoint;
    }

    /**
     * Records RECORDS..2*RECORDS-1 with the V2 serializers on Falcon, restored from {@code path}.
     */
    private static void upgradedRunChecksEveryRecord(String path) throws Exception {
        FalconTestAccess.Activation<Void> run =
                FalconTestAccess.runCapturingActivation(
                        () -> {
                            JobGraph job = job(environment(), RECORDS, true);
                            job.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(path));
                            ClusterClient<?> client = cluster.getClusterClient();
                            JobID id = client.submitJob(job).get();
                            awaitProcessed(client, id);
                            client.cancel(id).get(2, TimeUnit.MINUTES);
                            return null;
                        });
        assertThat(run.falconLines())
                .as("the upgraded job's ValueStates are tuned and cached")
                .contains(
                        "INFO [FALCON] profile is valueState, use HashLinkList as memTable structure (prefix 10 bytes)",
                        "INFO [FALCON] count is valueState, use HashLinkList as memTable structure (prefix 10 bytes)")
                .anyMatch(l -> l.startsWith("INFO [FALCON] <profile, VALUE> falcon cache enabled"));
        assertThat(new ArrayList<>(MISMATCHES)).as("what records found in their state").isEmpty();
    }

    private static StreamExecutionEnvironment environment() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.setMaxParallelism(128);
        // A failed restore fails the job at once instead of restarting it.
        env.setRestartStrategy(RestartStrategies.noRestart());
        // Checkpoints only when the test triggers one; kept when the job is cancelled.
        env.enableCheckpointing(Duration.ofHours(1).toMillis());
        env.getCheckpointConfig()
                .setExternalizedCheckpointCleanup(
                        CheckpointConfig.ExternalizedCheckpointCleanup.RETAIN_ON_CANCELLATION);
        env.getCheckpointConfig()
                .setCheckpointStorage(scratch.path().resolve("checkpoints").toUri().toString());
        return env;
    }

    private static JobGraph job(StreamExecutionEnvironment env, long first, boolean upgraded) {
        PROCESSED.set(0);
        MISMATCHES.clear();
        env.addSource(new EmitThenIdle(first))
                .setParallelism(1)
                .uid("source")
                .keyBy(v -> v % KEYS, Types.LONG)
                .process(new CheckingFunction(upgraded))
                .uid("migrating")
                .addSink(new DiscardingSink<>())
                .uid("sink");
        return env.getStreamGraph().getJobGraph();
    }

    private static void awaitProcessed(ClusterClient<?> client, JobID id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (PROCESSED.get() < RECORDS) {
            assertThat(System.nanoTime()).as("all records processed in time").isLessThan(deadline);
            JobStatus status = client.getJobStatus(id).get();
            assertThat(status.isGloballyTerminalState()).as("job status %s", status).isFalse();
            Thread.sleep(20);
        }
    }

    /** Emits RECORDS records from {@code first} on, then stays running until cancelled. */
    private static final class EmitThenIdle implements SourceFunction<Long> {
        private static final long serialVersionUID = 1L;
        private final long first;
        private volatile boolean running = true;

        EmitThenIdle(long first) {
            this.first = first;
        }

        @Override
        public void run(SourceContext<Long> ctx) throws Exception {
            for (long v = first; v < first + RECORDS && running; v++) {
                synchronized (ctx.getCheckpointLock()) {
                    ctx.collect(v);
                }
            }
            while (running) {
                Thread.sleep(10);
            }
        }

        @Override
        public void cancel() {
            running = false;
        }
    }

    /**
     * Record v is the (v / KEYS)-th of key v % KEYS. Before writing it checks that the state holds
     * what the key's earlier records wrote: the count, the profile (ValueState of TestType) and
     * every earlier event (MapState of TestType values), then writes its own.
     */
    private static final class CheckingFunction extends KeyedProcessFunction<Long, Long, String> {
        private static final long serialVersionUID = 1L;
        private final boolean upgraded;
        private transient ValueState<Long> count;
        private transient ValueState<TestType> profile;
        private transient MapState<Long, TestType> events;

        CheckingFunction(boolean upgraded) {
            this.upgraded = upgraded;
        }

        @Override
        public void open(Configuration parameters) {
            TypeSerializer<TestType> serializer =
                    upgraded
                            ? new TestType.V2TestTypeSerializer()
                            : new TestType.V1TestTypeSerializer();
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            profile =
                    getRuntimeContext().getState(new ValueStateDescriptor<>("profile", serializer));
            events =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>(
                                            "events", LongSerializer.INSTANCE, serializer));
        }

        @Override
        public void processElement(Long v, Context ctx, Collector<String> out) throws Exception {
            long key = ctx.getCurrentKey();
            int n = (int) (v / KEYS);
            Long c = count.value();
            check(v, "count", c == null ? 0L : c, (long) n);
            check(v, "profile", profile.value(), n == 0 ? null : new TestType("p" + key, n));
            List<Long> seen = new ArrayList<>();
            for (Long e : events.keys()) {
                seen.add(e);
            }
            check(v, "events", seen.size(), n);
            if (n > 0) {
                check(
                        v,
                        "previous event",
                        events.get(v - KEYS),
                        new TestType("e", (int) (v - KEYS)));
            }
            count.update(n + 1L);
            profile.update(new TestType("p" + key, n + 1));
            events.put(v, new TestType("e", v.intValue()));
            PROCESSED.incrementAndGet();
        }

        private static void check(long v, String what, Object actual, Object expected) {
            if (expected == null ? actual != null : !expected.equals(actual)) {
                MISMATCHES.add(
                        "record " + v + ": " + what + " " + actual + ", expected " + expected);
            }
        }
    }
}
