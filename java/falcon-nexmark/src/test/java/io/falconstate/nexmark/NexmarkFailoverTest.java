package io.falconstate.nexmark;

import org.apache.flink.runtime.minicluster.MiniCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kills the job once mid-run (a source reader throws after a completed checkpoint) and checks that
 * the job recovers from the checkpoint and the materialized result equals the failure-free one: no
 * changelog record lost or duplicated (the materializer checks every sequence number).
 */
class NexmarkFailoverTest {
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

    private NexmarkRunResult runWithFailure(String query, String backend) throws Exception {
        Path marker = tmp.resolve(query + "-failed.marker");
        NexmarkRunResult r =
                NexmarkTestRuns.run(
                        cluster,
                        NexmarkTestRuns.options(query, backend, tmp.resolve(query + "-failover"))
                                // Slow enough for checkpoints to complete before the injected
                                // failure.
                                .rateLimit(8_000)
                                .injectFailure(3_000, marker)
                                .restartAttempts(2));
        assertThat(marker).as("the injected failure happened").exists();
        // The reader fails only after a completed checkpoint, so the job restored from one.
        assertThat(r.completedCheckpoints()).isGreaterThanOrEqualTo(2);
        return r;
    }

    @Test
    void q4RecoversToTheFailureFreeResult() throws Exception {
        NexmarkRunResult failed = runWithFailure("q4", "rocksdb");
        assertThat(failed.table()).isNotNull();
        assertThat(failed.table().rows()).isEqualTo(NexmarkTestRuns.q4Oracle());
    }

    /** q4's MAX/AVG hide duplicated input; q17's counts and sums expose any. */
    @Test
    void q17CountsAreExactAfterRecovery() throws Exception {
        NexmarkRunResult clean =
                NexmarkTestRuns.run(
                        cluster,
                        NexmarkTestRuns.options("q17", "hashmap", tmp.resolve("q17-clean")));
        NexmarkRunResult failed = runWithFailure("q17", "rocksdb");
        assertThat(clean.table().size()).isGreaterThan(100);
        assertThat(failed.table()).isEqualTo(clean.table());
    }

    @Test
    void windowedQ5RecoversToTheFailureFreeResult() throws Exception {
        NexmarkRunResult clean =
                NexmarkTestRuns.run(
                        cluster, NexmarkTestRuns.options("q5", "hashmap", tmp.resolve("q5-clean")));
        NexmarkRunResult failed = runWithFailure("q5", "rocksdb");
        assertThat(clean.table().size()).isGreaterThan(3);
        assertThat(failed.table()).isEqualTo(clean.table());
        assertThat(Files.exists(tmp.resolve("q5-failover").resolve("result"))).isTrue();
    }
}
