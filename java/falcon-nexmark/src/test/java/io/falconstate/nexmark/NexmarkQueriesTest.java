package io.falconstate.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.falconstate.nexmark.sink.MaterializedTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every query on the small workload with each stock backend (and Falcon once present): the
 * materialized results must be equal, non-trivial, and for q4 equal to an independent oracle.
 */
class NexmarkQueriesTest {
  @TempDir static Path clusterDir;
  private static MiniCluster cluster;

  @TempDir Path tmp;

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
    MaterializedTable reference = results.get(0).table();
    assertThat(reference).isNotNull();
    assertThat(reference.size()).as("result rows of %s", query).isGreaterThan(3);
    for (NexmarkRunResult r : results.subList(1, results.size())) {
      assertThat(r.table()).as("%s on %s vs %s", query, r.stateBackend(),
          results.get(0).stateBackend()).isEqualTo(reference);
    }
    if (query.equals("q4")) {
      assertThat(reference.rows()).isEqualTo(NexmarkTestRuns.q4Oracle());
    }
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
