package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.NexmarkRunOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/** The harness and its forked run speak one vocabulary: each run's command means that run. */
class RunLauncherTest {
    @TempDir Path tmp;

    @Test
    void everyPlannedRunsCommandParsesInTheForkedRunIntoThatRunsSettings() {
        BenchmarkOptions o =
                NexmarkBenchmark.parse(
                        "--queries",
                        "q4,q5",
                        "--reps",
                        "1",
                        "--mini-batch",
                        "off,on",
                        "--parallelism",
                        "1,2",
                        "--backends",
                        "rocksdb,falcon",
                        "--cache-sweep",
                        "1mb",
                        "--conf",
                        "a.b=c",
                        "--source",
                        "rate.limit=100",
                        "--warmup",
                        "0.3",
                        "--events",
                        "1000",
                        "--checkpoint-interval-ms",
                        "500");
        RunMatrix matrix = RunMatrix.of(o);
        assertThat(matrix.labels()).containsExactly("rocksdb", "falcon", "falcon@cache-1mb");
        assertThat(matrix.runs).hasSize(2 * 2 * 2 * 3);
        RunLauncher launcher = new RunLauncher(o);
        for (RunMatrix.Run run : matrix.runs) {
            Path dir = tmp.resolve(run.id());
            NexmarkBenchmarkMain main = forkedMain(launcher, run, dir);
            NexmarkRunOptions r = main.run.toRunOptions();

            assertThat(main.resultFile).isEqualTo(dir.resolve("result.properties"));
            assertThat(r.query()).isEqualTo(run.query);
            assertThat(r.parallelism()).isEqualTo(run.parallelism);
            assertThat(r.miniBatch()).isEqualTo(run.miniBatch);
            assertThat(r.stateBackend()).isEqualTo(run.variant.stateBackend);
            assertThat(r.outputDir()).isEqualTo(dir);
            assertThat(r.sink()).isEqualTo(NexmarkRunOptions.Sink.BLACKHOLE);
            assertThat(r.events()).isEqualTo(1000);
            assertThat(r.checkpointIntervalMillis()).isEqualTo(500);
            assertThat(r.warmupFraction()).isEqualTo(0.3);
            Map<String, String> conf = new LinkedHashMap<>(RunMatrix.commonConf(o));
            conf.putAll(run.variant.conf);
            assertThat(r.configuration()).containsExactlyEntriesOf(conf).containsEntry("a.b", "c");
            assertThat(r.sourceOptions()).containsExactly(entry("rate.limit", "100"));
            assertThat(r.restartAttempts()).isZero();
        }
    }

    @Test
    void recoveryRunsFailOnceEachWithTheirOwnMarkerAndOneRestart() {
        BenchmarkOptions o =
                NexmarkBenchmark.parse(
                        "--queries",
                        "q4",
                        "--reps",
                        "2",
                        "--backends",
                        "rocksdb,falcon",
                        "--fail-after-events",
                        "5000");
        RunMatrix matrix = RunMatrix.of(o);
        RunLauncher launcher = new RunLauncher(o);
        java.util.Set<String> markers = new java.util.HashSet<>();
        for (RunMatrix.Run run : matrix.runs) {
            Path dir = tmp.resolve(run.id());
            NexmarkRunOptions r = forkedMain(launcher, run, dir).run.toRunOptions();
            assertThat(r.sourceOptions())
                    .containsEntry("failure.after-events", "5000")
                    .containsEntry("failure.marker", dir.resolve("failure.marker").toString());
            assertThat(r.restartAttempts()).isEqualTo(1);
            markers.add(r.sourceOptions().get("failure.marker"));
        }
        assertThat(markers).hasSize(matrix.runs.size());
    }

    /** The forked run's main, as it parses the command the launcher gives it. */
    private static NexmarkBenchmarkMain forkedMain(
            RunLauncher launcher, RunMatrix.Run run, Path dir) {
        List<String> cmd = launcher.command(run, dir);
        List<String> args =
                cmd.subList(cmd.indexOf(NexmarkBenchmarkMain.class.getName()) + 1, cmd.size());
        NexmarkBenchmarkMain main = new NexmarkBenchmarkMain();
        Cli.commandLine(main).parseArgs(args.toArray(new String[0]));
        return main;
    }
}
