package io.falconstate.nexmark;

import io.falconstate.nexmark.sink.ChangelogLines;
import io.falconstate.nexmark.sink.ChangelogMaterializer;

import org.apache.flink.runtime.minicluster.MiniCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real-cluster job's argument parsing and the result check the e2e test runs on its output
 * (tests/e2e/jobs/nexmark.sh): the check accepts a correct q4 run and rejects a changelog with a
 * replayed record, a lost committed file, or a result that differs from the reference run.
 */
class NexmarkResultCheckTest {
    @TempDir static Path clusterDir;
    private static MiniCluster cluster;
    private static Path runDir;

    /** The e2e's arguments, over the shared test workload. */
    private static String[] jobArgs(Path output) {
        return new String[] {
            "--query",
            "q4",
            "--output",
            output.toString(),
            "--events",
            Long.toString(NexmarkTestRuns.EVENTS),
            "--seed",
            Long.toString(NexmarkTestRuns.SEED),
            "--event-time-rate",
            Long.toString(NexmarkTestRuns.EVENT_TIME_RATE),
            "--source",
            "out-of-order.group-size=" + NexmarkTestRuns.OUT_OF_ORDER_GROUP,
            "--rate-limit",
            "0",
            "--checkpoint-interval-ms",
            "200"
        };
    }

    @BeforeAll
    static void runQ4() throws Exception {
        cluster = NexmarkTestRuns.startCluster(clusterDir);
        runDir = clusterDir.resolve("run");
        NexmarkTestRuns.run(cluster, NexmarkTestRuns.options("q4", "rocksdb", runDir));
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A copy of the committed result files of the shared run under a fresh output directory. */
    private static Path copyOfRun(String name) throws Exception {
        Path out = Files.createTempDirectory(clusterDir, name);
        Path result = Files.createDirectories(out.resolve("result"));
        for (Path f : ChangelogMaterializer.committedFiles(runDir.resolve("result"))) {
            Files.copy(f, result.resolve(f.getFileName().toString()));
        }
        return out;
    }

    @Test
    void parsesTheE2eArgumentsIntoTheGeneratorOfTheTestWorkload() {
        NexmarkRunOptions o = NexmarkClusterJob.parse(jobArgs(clusterDir.resolve("x")));
        assertThat(NexmarkResultCheck.generatorConfig(o)).isEqualTo(NexmarkTestRuns.config());
        assertThat(o.checkpointIntervalMillis()).isEqualTo(200);

        NexmarkRunOptions failing =
                NexmarkClusterJob.parse(
                        concat(jobArgs(clusterDir.resolve("y")), "--fail-after", "700"));
        assertThat(failing.sourceOptions())
                .containsEntry("failure.after-events", "700")
                .containsEntry(
                        "failure.marker",
                        clusterDir
                                .resolve("y")
                                .resolve(NexmarkClusterJob.FAILURE_MARKER)
                                .toAbsolutePath()
                                .toString());
        assertThat(NexmarkResultCheck.generatorConfig(failing)).isEqualTo(NexmarkTestRuns.config());
    }

    @Test
    void acceptsTheCommittedResultOfACorrectRun() throws Exception {
        Path out = copyOfRun("exact-");
        NexmarkResultCheck.Result r =
                NexmarkResultCheck.check(NexmarkClusterJob.parse(jobArgs(out)), null);
        assertThat(r.exact).as(r.summary).isTrue();
        assertThat(r.summary)
                .startsWith("result check ok: q4, ")
                .contains("rows = the q4 oracle over 20000 generated events");
    }

    @Test
    void rejectsAReplayedRecord() throws Exception {
        Path out = copyOfRun("replayed-");
        Path file = ChangelogMaterializer.committedFiles(out.resolve("result")).get(0);
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Files.write(
                file,
                (lines.get(0) + "\n").getBytes(StandardCharsets.UTF_8),
                StandardOpenOption.APPEND);
        NexmarkResultCheck.Result r =
                NexmarkResultCheck.check(NexmarkClusterJob.parse(jobArgs(out)), null);
        assertThat(r.exact).isFalse();
        assertThat(r.summary).contains("duplicate changelog record");
    }

    @Test
    void rejectsALostCommittedFile() throws Exception {
        Path out = copyOfRun("lost-");
        List<Path> files = ChangelogMaterializer.committedFiles(out.resolve("result"));
        assertThat(files).hasSizeGreaterThan(1);
        Files.delete(files.get(files.size() - 1));
        NexmarkResultCheck.Result r =
                NexmarkResultCheck.check(NexmarkClusterJob.parse(jobArgs(out)), null);
        assertThat(r.exact).as(r.summary).isFalse();
        assertThat(r.summary).startsWith("result check FAILED");
    }

    @Test
    void comparesOtherQueriesWithAReferenceRun() throws Exception {
        Path out = copyOfRun("reference-");
        NexmarkRunOptions asQ3 = NexmarkClusterJob.parse(jobArgs(out)).query("q3");
        assertThat(NexmarkResultCheck.check(asQ3, runDir).exact).isTrue();

        // A well-formed changelog (the next sequence number of subtask 0) with one row too many.
        long next = 0;
        for (Path f : ChangelogMaterializer.committedFiles(out.resolve("result"))) {
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                ChangelogLines.Record rec = ChangelogLines.parse(line);
                if (rec.subtask == 0) {
                    next = Math.max(next, rec.seq + 1);
                }
            }
        }
        Files.write(
                out.resolve("result").resolve("part-extra.txt"),
                (ChangelogLines.line(0, next, "+I\t99\t1") + "\n")
                        .getBytes(StandardCharsets.UTF_8));
        NexmarkResultCheck.Result r = NexmarkResultCheck.check(asQ3, runDir);
        assertThat(r.exact).isFalse();
        assertThat(r.summary)
                .contains("rows differ from the reference run")
                .contains("missing 0 rows")
                .contains("unexpected 1 rows [99,1]");

        // Break the reference where a check can always see it: drop subtask 0's first record
        // (sequence 0) from the file holding it. Deleting a whole file is not always visible: a
        // file
        // may hold all of one subtask's records (the subtask then just looks absent), and a lost
        // tail leaves no gap. Part-file names carry random ids, so the file is found by content.
        Path brokenReference = copyOfRun("broken-");
        boolean dropped = false;
        int subtask0Records = 0;
        for (Path f : ChangelogMaterializer.committedFiles(brokenReference.resolve("result"))) {
            List<String> kept = new ArrayList<>();
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                ChangelogLines.Record rec = line.isEmpty() ? null : ChangelogLines.parse(line);
                subtask0Records += rec != null && rec.subtask == 0 ? 1 : 0;
                if (rec != null && rec.subtask == 0 && rec.seq == 0) {
                    dropped = true;
                } else {
                    kept.add(line);
                }
            }
            Files.write(f, kept, StandardCharsets.UTF_8);
        }
        assertThat(dropped).as("a committed file holds subtask 0's record 0").isTrue();
        // Its record 1 remains, so the gap shows.
        assertThat(subtask0Records).isGreaterThan(1);
        NexmarkResultCheck.Result broken = NexmarkResultCheck.check(asQ3, brokenReference);
        assertThat(broken.exact).isFalse();
        assertThat(broken.summary).contains("the reference run's changelog is broken");
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
