package io.falconstate.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.falconstate.nexmark.sink.MaterializedTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every query on the small workload with rocksdb, hashmap and Falcon: the materialized results
 * must be equal to rocksdb's, non-trivial, and for q4 equal to an independent oracle.
 */
class NexmarkQueriesTest {
  @TempDir static Path clusterDir;
  private static MiniCluster cluster;

  /**

   * Per-test files live inside the class directory, which JUnit deletes only after {@code

   * @AfterAll} closed the shared MiniCluster: the cluster may still be writing or discarding a

   * finished job's checkpoint files when a test returns, which made a per-test {@code @TempDir}

   * fail its cleanup now and then.

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
    for (String backend : NexmarkTestRuns.backends()) {
      NexmarkRunResult r = NexmarkTestRuns.run(cluster, NexmarkTestRuns.options(query, backend,
          tmp.resolve(backend.replaceAll("\\W", "_"))));
      assertThat(r.completedCheckpoints()).as("completed checkpoints").isPositive();
      results.add(r);
    }
    // Falcon with a cache far smaller than the state: constant eviction and write-back.
    results.add(NexmarkTestRuns.run(cluster, NexmarkTestRuns.withTinyFalconCache(
        NexmarkTestRuns.options(query, NexmarkTestRuns.FALCON, tmp.resolve("falcon_tiny_cache")))));
    MaterializedTable reference = results.get(0).table();
    assertThat(reference).isNotNull();
    assertThat(reference.size()).as("result rows of %s", query).isGreaterThan(3);
    for (NexmarkRunResult r : results.subList(1, results.size())) {
      assertThat(r.table()).as("%s on %s %s vs %s", query, r.stateBackend(),
          r == results.get(results.size() - 1) ? "(tiny cache)" : "",
          results.get(0).stateBackend()).isEqualTo(reference);
    }
    if (query.equals("q4")) {
      assertThat(reference.rows()).isEqualTo(NexmarkTestRuns.q4Oracle());
    }
  }

  @Test
  void falconIsAmongTheComparedBackends() {
    assertThat(NexmarkTestRuns.backends()).first().isEqualTo("rocksdb");
    assertThat(NexmarkTestRuns.backends()).contains(NexmarkTestRuns.FALCON);
  }

  @Test
  void blackholeRunMeasuresWithoutCollecting() throws Exception {
    NexmarkRunResult r = NexmarkTestRuns.run(cluster, NexmarkTestRuns.options("q4", "hashmap", tmp)
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
    NexmarkRunResult r = NexmarkTestRuns.run(cluster, NexmarkTestRuns.options("q4", "rocksdb", dir)
        .sink(NexmarkRunOptions.Sink.BLACKHOLE).warmupFraction(0.2)
        .rateLimit(10_000)); // about 2 s: several 200 ms checkpoints, a visible warm-up
    MeasuredWindow w = r.window();
    // The source counter is exact at the end: warm-up + window = all events.
    assertThat(w.warmupEvents() + w.events()).isEqualTo(NexmarkTestRuns.EVENTS);
    assertThat(w.warmupObserved()).isTrue();
    assertThat(w.warmupEvents()).isGreaterThanOrEqualTo(NexmarkTestRuns.EVENTS / 5)
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
    NexmarkRunResult r = NexmarkTestRuns.run(cluster, NexmarkTestRuns.options("q4", "rocksdb", tmp)
        .miniBatch(true).miniBatchLatency(java.time.Duration.ofMillis(100)).miniBatchSize(500));
    assertThat(r.table()).isNotNull();
    assertThat(r.table().rows()).isEqualTo(NexmarkTestRuns.q4Oracle());
  }
}
