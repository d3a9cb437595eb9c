/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.it;

import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.FalconStateBackendFactory;
import io.falconstate.flink.FalconTestAccess;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.SourceFunction;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A canonical savepoint taken while a job runs on Falcon is read back through the State Processor
 * API, with the stock RocksDB backend (savepoints stay readable without Falcon) and with Falcon;
 * and a savepoint the State Processor API writes through Falcon reads back the same way.
 */
class FalconSavepointITCase {

    private static final AtomicLong PROCESSED = new AtomicLong();

    @TempDir Path tmp;

    @Test
    void savepointUnderFalconIsReadableThroughTheStateProcessorApi() throws Exception {
        Configuration config = new Configuration();
        config.setString(
                StateBackendOptions.STATE_BACKEND, FalconStateBackendFactory.class.getName());

        FalconTestAccess.Activation<String> run =
                FalconTestAccess.runCapturingActivation(() -> takeSavepoint(config));
        assertThat(run.activationLines())
                .hasSize(1)
                .allMatch(l -> l.startsWith("INFO [FALCON] Falcon "));
        String savepoint = run.result();

        List<String> expected = expected();
        assertThat(read(savepoint, new EmbeddedRocksDBStateBackend())).isEqualTo(expected);
        FalconTestAccess.Activation<List<String>> falconRead =
                FalconTestAccess.runCapturingActivation(
                        () -> read(savepoint, new FalconStateBackend()));
        assertThat(falconRead.activationLines()).hasSize(1);
        assertThat(falconRead.result()).isEqualTo(expected);
    }

    /**
     * The State Processor API writes a savepoint through Falcon's keyed backend (its canonical
     * savepoint, read through a RocksDB snapshot, of tuned and cached states); the stock backend
     * and Falcon read the same states back.
     */
    @Test
    void savepointWrittenThroughFalconByTheStateProcessorApiIsReadableOnStock() throws Exception {
        String path = tmp.resolve("bootstrapped").toUri().toString();
        FalconTestAccess.Activation<Void> write =
                FalconTestAccess.runCapturingActivation(
                        () -> {
                            StreamExecutionEnvironment env =
                                    StreamExecutionEnvironment.createLocalEnvironment(1);
                            StateBootstrapTransformation<Long> states =
                                    OperatorTransformation.bootstrapWith(
                                                    env.fromSequence(0, StatefulJobs.RECORDS - 1))
                                            .keyBy(v -> v % StatefulJobs.KEYS, Types.LONG)
                                            .transform(new Bootstrapper());
                            SavepointWriter.newSavepoint(new FalconStateBackend(), 128)
                                    .withOperator("stateful-counter", states)
                                    .write(path);
                            env.execute("bootstrap a savepoint");
                            return null;
                        });
        assertThat(write.falconLines())
                .contains(
                        "INFO [FALCON] sum is valueState, use HashLinkList as memTable structure (prefix 10 bytes)")
                .anyMatch(l -> l.startsWith("INFO [FALCON] <sum, VALUE> falcon cache enabled"));

        assertThat(read(path, new EmbeddedRocksDBStateBackend())).isEqualTo(expected());
        assertThat(read(path, new FalconStateBackend())).isEqualTo(expected());
    }

    private String takeSavepoint(Configuration config) throws Exception {
        MiniClusterWithClientResource cluster =
                new MiniClusterWithClientResource(
                        new MiniClusterResourceConfiguration.Builder()
                                .setConfiguration(config)
                                .setNumberTaskManagers(1)
                                .setNumberSlotsPerTaskManager(2)
                                .build());
        cluster.before();
        try {
            PROCESSED.set(0);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(config);
            env.setParallelism(2);
            env.addSource(new EmitThenIdle())
                    .setParallelism(1)
                    .keyBy(value -> value % StatefulJobs.KEYS, Types.LONG)
                    .process(new CountingStatefulCounter())
                    .uid("stateful-counter")
                    .addSink(new DiscardingSink<>());
            JobGraph jobGraph = env.getStreamGraph().getJobGraph();

            ClusterClient<?> client = cluster.getClusterClient();
            JobID jobId = client.submitJob(jobGraph).get();
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (PROCESSED.get() < StatefulJobs.RECORDS) {
                assertThat(System.nanoTime())
                        .as("all records processed in time")
                        .isLessThan(deadline);
                JobStatus status = client.getJobStatus(jobId).get();
                assertThat(status.isGloballyTerminalState()).as("job status %s", status).isFalse();
                Thread.sleep(20);
            }
            return client.cancelWithSavepoint(
                            jobId,
                            tmp.resolve("savepoints").toUri().toString(),
                            SavepointFormatType.CANONICAL)
                    .get(2, TimeUnit.MINUTES);
        } finally {
            cluster.after();
        }
    }

    private static List<String> read(String savepoint, StateBackend backend) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1);
        List<String> lines = new ArrayList<>();
        try (CloseableIterator<String> it =
                SavepointReader.read(env, savepoint, backend)
                        .readKeyedState("stateful-counter", new StateReader())
                        .executeAndCollect("read savepoint")) {
            it.forEachRemaining(lines::add);
        }
        Collections.sort(lines);
        return lines;
    }

    private static List<String> expected() {
        List<String> lines = new ArrayList<>();
        for (long key = 0; key < StatefulJobs.KEYS; key++) {
            long sum = 0;
            int size = 0;
            Map<Long, Long> buckets = new TreeMap<>();
            for (long v = key; v < StatefulJobs.RECORDS; v += StatefulJobs.KEYS) {
                sum += v;
                size++;
                buckets.merge(v % 10, 1L, Long::sum);
            }
            lines.add(line(key, sum, buckets, size, sum));
        }
        Collections.sort(lines);
        return lines;
    }

    private static String line(
            long key, long sum, Map<Long, Long> buckets, int size, long listSum) {
        return "key "
                + key
                + " sum="
                + sum
                + " buckets="
                + buckets
                + " list="
                + size
                + "/"
                + listSum;
    }

    /** Emits the records once, then stays running until cancelled (so a savepoint can be taken). */
    private static final class EmitThenIdle implements SourceFunction<Long> {
        private static final long serialVersionUID = 1L;
        private volatile boolean running = true;

        @Override
        public void run(SourceContext<Long> ctx) throws Exception {
            for (long i = 0; i < StatefulJobs.RECORDS && running; i++) {
                synchronized (ctx.getCheckpointLock()) {
                    ctx.collect(i);
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

    /** The keyed function of the other ITCases, counting what it processed. */
    private static final class CountingStatefulCounter extends StatefulJobs.StatefulCounter {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(Long value, Context ctx, Collector<String> out)
                throws Exception {
            super.processElement(value, ctx, out);
            PROCESSED.incrementAndGet();
        }
    }

    /** Writes the states {@link StatefulJobs.StatefulCounter} would have after all records. */
    private static final class Bootstrapper extends KeyedStateBootstrapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Long> sum;
        private transient MapState<Long, Long> buckets;
        private transient ListState<Long> values;

        @Override
        public void open(Configuration parameters) {
            sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
            buckets =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>("buckets", Types.LONG, Types.LONG));
            values =
                    getRuntimeContext()
                            .getListState(new ListStateDescriptor<>("values", Types.LONG));
        }

        @Override
        public void processElement(Long value, Context ctx) throws Exception {
            Long current = sum.value();
            sum.update(current == null ? value : current + value);
            Long bucket = buckets.get(value % 10);
            buckets.put(value % 10, bucket == null ? 1L : bucket + 1);
            values.add(value);
        }
    }

    /** Reads the states {@link StatefulJobs.StatefulCounter} writes. */
    private static final class StateReader extends KeyedStateReaderFunction<Long, String> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Long> sum;
        private transient MapState<Long, Long> buckets;
        private transient ListState<Long> values;

        @Override
        public void open(Configuration parameters) {
            sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
            buckets =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>("buckets", Types.LONG, Types.LONG));
            values =
                    getRuntimeContext()
                            .getListState(new ListStateDescriptor<>("values", Types.LONG));
        }

        @Override
        public void readKey(Long key, Context ctx, Collector<String> out) throws Exception {
            Map<Long, Long> counts = new TreeMap<>();
            for (Map.Entry<Long, Long> e : buckets.entries()) {
                counts.put(e.getKey(), e.getValue());
            }
            int size = 0;
            long listSum = 0;
            for (Long v : values.get()) {
                size++;
                listSum += v;
            }
            out.collect(line(key, sum.value(), counts, size, listSum));
        }
    }
}
