package io.falconstate.nexmark;

import io.falconstate.nexmark.sink.ChangelogMaterializer;
import io.falconstate.nexmark.sink.MaterializedTable;
import io.falconstate.nexmark.sink.SequenceStamper;
import io.falconstate.nexmark.source.FailureInjection;
import io.falconstate.nexmark.table.NexmarkSchema;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rescaling under Falcon with a tiny cache (state split between cache and RocksDB at every
 * checkpoint): q17 runs at parallelism 2 and stops (an injected source failure with no restarts, so
 * the job fails and keeps its retained checkpoint), is restored at parallelism 1 and stops again,
 * then is restored at parallelism 2 and runs to the end. The materialized result equals that of an
 * unscaled failure-free run.
 *
 * <p>The result collector's per-subtask sequence numbers cannot be restored at another parallelism
 * (docs/nexmark.md), so its stamper and file sink keep parallelism 2 (explicit, with uids) while
 * the query's operators rescale.
 */
class NexmarkRescaleTest {
    @TempDir static Path clusterDir;
    private static MiniCluster cluster;

    /**
     * Per-test files live inside the class directory, which JUnit deletes only after
     * {@code @AfterAll} closed the shared MiniCluster: the cluster may still be writing or
     * discarding a finished job's checkpoint files when a test returns, which made a per-test
     * {@code @TempDir} fail its cleanup now and then.
     */
    private Path tmp;

    @BeforeEach
    void createTestDirectory() throws java.io.IOException {
        tmp = java.nio.file.Files.createTempDirectory(clusterDir, "test-");
    }

    @BeforeAll
    static void startCluster() throws Exception {
        Configuration conf = new Configuration();
        conf.setString("io.tmp.dirs", clusterDir.toAbsolutePath().toString());
        conf.setString("rest.bind-port", "0"); // a free port: other clusters may hold 8081
        cluster = NexmarkRunner.startCluster(conf, 2);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void q17RescaledTwoToOneToTwoEqualsTheUnscaledResult() throws Exception {
        MaterializedTable unscaled =
                NexmarkTestRuns.run(
                                cluster,
                                NexmarkTestRuns.options("q17", "hashmap", tmp.resolve("clean")))
                        .table();

        Path result = tmp.resolve("result");
        Path first = stoppedRun(2, null, tmp.resolve("run1"), result);
        Path second = stoppedRun(1, first, tmp.resolve("run2"), result);
        JobResult last = run(2, second, tmp.resolve("run3"), result, false);
        last.toJobExecutionResult(getClass().getClassLoader()); // throws if the run failed

        assertThat(unscaled.size()).isGreaterThan(100);
        assertThat(ChangelogMaterializer.materialize(result)).isEqualTo(unscaled);
    }

    private Path stoppedRun(int parallelism, Path restore, Path dir, Path result) throws Exception {
        JobResult r = run(parallelism, restore, dir, result, true);
        assertThat(r.getSerializedThrowable())
                .as("the run stopped by its injected failure")
                .isPresent();
        assertThat(r.getSerializedThrowable().get().getFullStringifiedStackTrace())
                .contains(FailureInjection.MESSAGE);
        Optional<Path> latest = latestCheckpoint(dir.resolve("checkpoints"));
        assertThat(latest).as("a retained checkpoint of the stopped run").isPresent();
        return latest.get();
    }

    private static JobResult run(int parallelism, Path restore, Path dir, Path result, boolean stop)
            throws Exception {
        NexmarkRunOptions o =
                NexmarkTestRuns.withTinyFalconCache(
                                NexmarkTestRuns.options("q17", NexmarkTestRuns.FALCON, dir))
                        .parallelism(parallelism)
                        .rateLimit(
                                stop
                                        ? 3_000
                                        : 8_000); // slow enough for checkpoints before the stop
        if (stop) {
            o.injectFailure(2_000, dir.resolve("stop.marker"));
        }
        Files.createDirectories(dir.resolve("tmp"));
        Configuration conf = NexmarkRunner.configuration(o);
        conf.setString(
                "execution.checkpointing.externalized-checkpoint-retention",
                "RETAIN_ON_CANCELLATION");
        conf.setString("pipeline.max-parallelism", "128");

        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(
                        env,
                        EnvironmentSettings.newInstance()
                                .inStreamingMode()
                                .withConfiguration(conf)
                                .build());
        tEnv.executeSql(
                NexmarkSchema.createTable(
                        NexmarkRunner.SOURCE_TABLE, NexmarkRunner.sourceOptions(o)));
        for (String view : NexmarkSchema.createViews(NexmarkRunner.SOURCE_TABLE)) {
            tEnv.executeSql(view);
        }
        List<String> statements = NexmarkQueries.statements(NexmarkQueries.text("q17"));
        for (String ddl : statements.subList(0, statements.size() - 1)) {
            tEnv.executeSql(ddl);
        }
        Table table = tEnv.sqlQuery(statements.get(statements.size() - 1));
        DataStream<Row> changelog = tEnv.toChangelogStream(table);
        FileSink<String> sink = NexmarkRunner.changelogFileSink(result);
        changelog
                .map(new NexmarkRunner.ToLine())
                .uid("changelog-to-line")
                .keyBy(new NexmarkRunner.RowContent())
                .map(new SequenceStamper())
                .setParallelism(2)
                .uid("sequence")
                .sinkTo(sink)
                .setParallelism(2)
                .uid("exactly-once-file-sink");
        JobGraph jobGraph = env.getStreamGraph().getJobGraph();
        if (restore != null) {
            jobGraph.setSavepointRestoreSettings(
                    SavepointRestoreSettings.forPath(restore.toUri().toString(), false));
        }
        cluster.submitJob(jobGraph).get();
        JobResult r = cluster.requestJobResult(jobGraph.getJobID()).get();
        RestoredCheckpointStats restored =
                cluster.getArchivedExecutionGraph(jobGraph.getJobID())
                        .get()
                        .getCheckpointStatsSnapshot()
                        .getLatestRestoredCheckpoint();
        if (restore != null) {
            assertThat(restored).as("the run restored from %s", restore).isNotNull();
            assertThat(restored.getExternalPath()).endsWith(restore.toAbsolutePath().toString());
        } else {
            assertThat(restored).isNull();
        }
        return r;
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
}
