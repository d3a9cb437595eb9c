package io.falconstate.nexmark;

import io.falconstate.nexmark.sink.MaterializedTable;

import org.apache.flink.runtime.minicluster.MiniCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every query on the small workload with rocksdb, hashmap and Falcon (default and tiny cache, with
 * mini-batch; for the join and aggregation queries also with both column-family tunings on): the
 * materialized results must be equal to rocksdb's, non-trivial, and for q4 equal to an independent
 * oracle.
 */
class NexmarkQueriesTest {
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
        cluster = NexmarkTestRuns.startCluster(clusterDir);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    static List<String> queries() {
        return NexmarkQueries.ALL;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queries")
    void resultsAreEqualAcrossBackends(String query) throws Exception {
        List<NexmarkRunResult> results = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (String backend : NexmarkTestRuns.backends()) {
            NexmarkRunResult r =
                    NexmarkTestRuns.run(
                            cluster,
                            NexmarkTestRuns.options(
                                    query, backend, tmp.resolve(backend.replaceAll("\\W", "_"))));
            assertThat(r.completedCheckpoints()).as("completed checkpoints").isPositive();
            results.add(r);
            labels.add(backend);
        }
        // Falcon with a cache far smaller than the state: constant eviction and write-back.
        results.add(
                NexmarkTestRuns.run(
                        cluster,
                        NexmarkTestRuns.withTinyFalconCache(
                                NexmarkTestRuns.options(
                                        query,
                                        NexmarkTestRuns.FALCON,
                                        tmp.resolve("falcon_tiny_cache")))));
        labels.add("falcon (tiny cache)");
        // Falcon with both column-family tunings on (HashLinkList memtables for fixed-length
        // ValueStates, range filters for MapStates): the join and aggregation states of these
        // queries are tuned, which their [FALCON] lines must show, and nothing may change.
        if (NexmarkTuningRuns.TUNED_QUERIES.contains(query)) {
            NexmarkTuningRuns.TunedRun tuned =
                    NexmarkTuningRuns.run(cluster, query, tmp.resolve("falcon_tuned"));
            NexmarkTuningRuns.assertTuningApplied(query, tuned);
            results.add(tuned.result);
            labels.add("falcon (tuned)");
        }
        // Falcon with Flink's heap timers: the window queries' timers leave RocksDB.
        results.add(
                NexmarkTestRuns.run(
                        cluster,
                        NexmarkTestRuns.options(
                                        query,
                                        NexmarkTestRuns.FALCON,
                                        tmp.resolve("falcon_heap_timers"))
                                .configuration(
                                        "state.backend.rocksdb.timer-service.factory", "HEAP")));
        labels.add("falcon (heap timers)");
        // Falcon with mini-batch: the benchmark runs every query both ways.
        results.add(
                NexmarkTestRuns.run(
                        cluster,
                        NexmarkTestRuns.options(
                                        query, NexmarkTestRuns.FALCON, tmp.resolve("falcon_mb"))
                                .miniBatch(true)
                                .miniBatchLatency(java.time.Duration.ofMillis(100))
                                .miniBatchSize(500)));
        labels.add("falcon (mini-batch)");
        MaterializedTable reference = results.get(0).table();
        assertThat(reference).isNotNull();
        assertThat(reference.size())
                .as("result rows of %s", query)
                .isGreaterThanOrEqualTo(minimumRows(query));
        for (int i = 1; i < results.size(); i++) {
            assertThat(results.get(i).table())
                    .as("%s on %s vs %s", query, labels.get(i), labels.get(0))
                    .isEqualTo(reference);
        }
        if (query.equals("q4")) {
            assertThat(reference.rows()).isEqualTo(NexmarkTestRuns.q4Oracle());
        }
    }

    /**
     * Rows a query's result must have on the small workload to show anything: q15 has one group
     * (the day) and q7 one row per 10-second window (the workload spans 20 s of event time); every
     * other query has many.
     */
    private static int minimumRows(String query) {
        switch (query) {
            case "q15":
                return 1;
            case "q7":
                return 2;
            default:
                return 4;
        }
    }

    @Test
    void falconIsAmongTheComparedBackends() {
        assertThat(NexmarkTestRuns.backends()).first().isEqualTo("rocksdb");
        assertThat(NexmarkTestRuns.backends()).contains(NexmarkTestRuns.FALCON);
    }

    @Test
    void blackholeRunMeasuresWithoutCollecting() throws Exception {
        NexmarkRunResult r =
                NexmarkTestRuns.run(
                        cluster,
                        NexmarkTestRuns.options("q4", "hashmap", tmp)
                                .sink(NexmarkRunOptions.Sink.BLACKHOLE));
        assertThat(r.table()).isNull();
        assertThat(r.elapsedNanos()).isPositive();
        assertThat(r.cpuNanos()).isPositive();
        assertThat(r.summary()).contains("query=q4", "events=20000", "result_rows=-");
    }

    @Test
    void warmupWindowExcludesTheFirstEvents() throws Exception {
        // Under the class's directory: the shared cluster may still discard this job's checkpoints
        // after it ended, which would race with deleting a per-test directory.
        Path dir = clusterDir.resolve("warmup-window");
        NexmarkRunResult r =
                NexmarkTestRuns.run(
                        cluster,
                        NexmarkTestRuns.options("q4", "rocksdb", dir)
                                .sink(NexmarkRunOptions.Sink.BLACKHOLE)
                                .warmupFraction(0.2)
                                .rateLimit(10_000)); // about 2 s: several 200 ms checkpoints, a
        // visible warm-up
        MeasuredWindow w = r.window();
        // The source counter is exact at the end: warm-up + window = all events.
        assertThat(w.warmupEvents() + w.events()).isEqualTo(NexmarkTestRuns.EVENTS);
        assertThat(w.warmupObserved()).isTrue();
        assertThat(w.warmupEvents())
                .isGreaterThanOrEqualTo(NexmarkTestRuns.EVENTS / 5)
                .isLessThan(NexmarkTestRuns.EVENTS / 2);
        assertThat(w.elapsedNanos()).isLessThan(r.elapsedNanos());
        assertThat(w.events()).isPositive();
        assertThat(w.eventsPerCpuSecond()).isPositive();
        assertThat(r.checkpoints().completed()).isPositive();
        assertThat(r.checkpoints().avgEndToEndMillis()).isGreaterThanOrEqualTo(0);
        assertThat(r.checkpoints().lastStateSize()).isPositive();
    }

    @Test
    void sourceRejectsATableWithTheWrongSchema() {
        org.apache.flink.table.api.TableEnvironment tEnv =
                org.apache.flink.table.api.TableEnvironment.create(
                        org.apache.flink.table.api.EnvironmentSettings.inStreamingMode());
        tEnv.executeSql("CREATE TEMPORARY TABLE bad (x INT) WITH ('connector' = 'nexmark')");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> tEnv.sqlQuery("SELECT * FROM bad").explain())
                .hasStackTraceContaining("physical columns");
    }

    @Test
    void q4WithMiniBatchMatchesTheOracle() throws Exception {
        NexmarkRunResult r =
                NexmarkTestRuns.run(
                        cluster,
                        NexmarkTestRuns.options("q4", "rocksdb", tmp)
                                .miniBatch(true)
                                .miniBatchLatency(java.time.Duration.ofMillis(100))
                                .miniBatchSize(500));
        assertThat(r.table()).isNotNull();
        assertThat(r.table().rows()).isEqualTo(NexmarkTestRuns.q4Oracle());
    }
}
