package io.falconstate.nexmark.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CI smoke test of the benchmark harness: q4 on a tiny event count with stock RocksDB and Falcon,
 * each run forked into its own JVM exactly as {@code bench/nexmark/run.sh} does, and the outputs
 * (RESULT lines, runs CSV, summary CSV, markdown) parsed back. Not a performance test: it only
 * checks that the numbers are there and positive.
 */
class NexmarkBenchmarkSmokeTest {
    @TempDir Path tmp;

    @Test
    void harnessRunsQ4OnRocksdbAndFalconAndWritesItsReport() throws Exception {
        String nativeLibrary = System.getProperty("falcon.native.library", "");
        BenchmarkOptions o =
                new BenchmarkOptions()
                        .queries("q4")
                        .events(40_000)
                        .reps(1)
                        .backends("rocksdb", "falcon")
                        .miniBatch(false)
                        .parallelism(1)
                        .checkpointIntervalMillis(300)
                        .heap("512m")
                        .nativeLibrary(nativeLibrary)
                        .out(tmp.resolve("out"))
                        .work(tmp.resolve("work"));
        if (nativeLibrary.isEmpty()) {
            // Without a library path the Falcon run would fail on native.required: run it as stock.
            o.falconConf.put("state.backend.falcon.native.required", "false");
        }
        o.source.put("rate.limit", "20000"); // about 2 s of input: a few checkpoints per run

        NexmarkBenchmark.Outcome out = NexmarkBenchmark.run(o);

        assertThat(out.runs).hasSize(2);
        for (RunRecord r : out.runs) {
            assertThat(r.get("status")).as("status of %s", r.get("run")).isEqualTo("ok");
            assertThat(r.number("events_per_core_s")).as("%s", r).isPositive();
            assertThat(r.number("events_per_s")).isPositive();
            assertThat(r.number("window_events")).isPositive();
            assertThat(r.number("warmup_events") + r.number("window_events")).isEqualTo(40_000);
            assertThat(r.number("checkpoints")).isPositive();
            assertThat(r.number("state_size_bytes")).isPositive();
        }
        assertThat(out.runs.get(0).get("backend_class"))
                .isEqualTo("org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend");
        assertThat(out.runs.get(1).get("backend_class"))
                .isEqualTo("io.falconstate.flink.FalconStateBackend");

        // RESULT lines: one per backend, parseable, ratio 1.00 for the baseline.
        List<String> lines = out.report.resultLines();
        assertThat(lines).hasSize(2);
        for (String l : lines) {
            assertThat(l)
                    .matches(
                            "RESULT q4 minibatch=off p=1 backend=(rocksdb|falcon)"
                                    + " events_per_core_s=[0-9]+\\.[0-9] ratio_vs_rocksdb=[0-9]+\\.[0-9]{2}");
            double x = Double.parseDouble(l.replaceAll(".*events_per_core_s=([0-9.]+).*", "$1"));
            assertThat(x).isPositive();
        }
        assertThat(lines.get(0)).endsWith("ratio_vs_rocksdb=1.00");

        // The CSVs read back.
        List<RunRecord> back = RunsCsv.read(out.runsCsv);
        assertThat(back).hasSize(2);
        assertThat(back.get(1).get("backend")).isEqualTo("falcon");
        assertThat(back.get(1).number("events_per_core_s"))
                .isEqualTo(out.runs.get(1).number("events_per_core_s"));
        List<String> summary = Files.readAllLines(out.summaryCsv, StandardCharsets.UTF_8);
        assertThat(summary).hasSize(3);
        assertThat(summary.get(0)).isEqualTo(String.join(",", BenchmarkReport.SUMMARY_COLUMNS));
        assertThat(new String(Files.readAllBytes(out.markdown), StandardCharsets.UTF_8))
                .contains("| q4 ", "`falcon`", "RESULT q4 minibatch=off p=1 backend=falcon");

        // Falcon's run log carries its [FALCON] line (activation, or the stock-fallback warning).
        try (Stream<Path> files = Files.walk(tmp.resolve("work"))) {
            List<Path> falconLogs =
                    files.filter(
                                    f ->
                                            f.getFileName().toString().equals("run.log")
                                                    && f.getParent()
                                                            .getFileName()
                                                            .toString()
                                                            .contains("-falcon-"))
                            .collect(Collectors.toList());
            assertThat(falconLogs).hasSize(1);
            String log = new String(Files.readAllBytes(falconLogs.get(0)), StandardCharsets.UTF_8);
            assertThat(log).contains(nativeLibrary.isEmpty() ? "[FALCON] WARN" : "[FALCON] Falcon");
        }
    }

    @Test
    void aRunStoppedAtTheTimeLimitKeepsItsWindowUntilThen() throws Exception {
        BenchmarkOptions o =
                new BenchmarkOptions()
                        .queries("q0")
                        .events(1_000_000)
                        .reps(1)
                        .backends("rocksdb")
                        .miniBatch(false)
                        .parallelism(1)
                        .heap("512m")
                        .out(tmp.resolve("out"))
                        .work(tmp.resolve("work"));
        // 10,000 events/s: 100 s of input against a 60 s limit (JVM start and planning included:
        // under CI's load they took more than 33 s once, and the window never opened); the window
        // opens after 2 s of input.
        o.source.put("rate.limit", "10000");
        o.warmup = 0.02;
        o.runTimeoutSeconds = 60;

        NexmarkBenchmark.Outcome out = NexmarkBenchmark.run(o);

        assertThat(out.runs).hasSize(1);
        RunRecord r = out.runs.get(0);
        assertThat(r.get("status")).isEqualTo("timeout");
        assertThat(r.number("warmup_events")).isBetween(20_000.0, 22_000.0);
        assertThat(r.number("window_events")).isPositive();
        assertThat(r.number("warmup_events") + r.number("window_events")).isLessThan(1_000_000);
        // The source's rate limit shows through: the window's rate is the rate it ran at.
        assertThat(r.number("events_per_s")).isBetween(7_000.0, 11_000.0);
        assertThat(r.number("events_per_core_s")).isPositive();
        assertThat(r.number("cores")).isPositive();
        assertThat(out.report.summaries().get(0).runs()).isZero();
        assertThat(out.report.stoppedRuns()).contains("q0", "rocksdb");
        assertThat(new String(Files.readAllBytes(out.markdown), StandardCharsets.UTF_8))
                .contains("Stopped at the time limit");
    }
}
