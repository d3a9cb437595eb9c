package io.falconstate.nexmark.bench;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** The report's arithmetic and formats on hand-made runs. */
class BenchmarkReportTest {
    private static RunRecord run(String backend, int rep, double perCore, String status) {
        return new RunRecord()
                .set("run", backend + rep)
                .set("rep", rep)
                .set("query", "q4")
                .set("minibatch", "off")
                .set("p", 1)
                .set("backend", backend)
                .set("config", "a=1;b=2")
                .set("status", status)
                .set("events_per_core_s", perCore)
                .set("events_per_s", perCore * 2)
                .set("state_size_bytes", 3 << 20);
    }

    @Test
    void mediansRangesAndRatiosAgainstRocksdb() {
        List<RunRecord> runs =
                new ArrayList<>(
                        Arrays.asList(
                                run("rocksdb", 1, 100, "ok"),
                                run("falcon", 1, 300, "ok"),
                                run("rocksdb", 2, 120, "ok"),
                                run("falcon", 2, 200, "ok"),
                                run("rocksdb", 3, 110, "ok"),
                                run("falcon", 3, 250, "ok"),
                                run("falcon", 4, 1e9, "timeout")));
        BenchmarkReport report = new BenchmarkReport(runs);
        BenchmarkReport.Summary falcon = report.summaries().get(1);
        assertThat(falcon.backend).isEqualTo("falcon");
        assertThat(falcon.runs()).isEqualTo(3);
        assertThat(falcon.median("events_per_core_s")).isEqualTo(250);
        assertThat(falcon.min("events_per_core_s")).isEqualTo(200);
        assertThat(falcon.max("events_per_core_s")).isEqualTo(300);
        assertThat(falcon.ratio()).isEqualTo(250.0 / 110);
        assertThat(report.resultLines())
                .containsExactly(
                        "RESULT q4 minibatch=off p=1 backend=rocksdb events_per_core_s=110.0 ratio_vs_rocksdb=1.00",
                        "RESULT q4 minibatch=off p=1 backend=falcon events_per_core_s=250.0 ratio_vs_rocksdb=2.27");
        assertThat(report.table())
                .contains(
                        "3 (+1 failed)",
                        "250 (200-300)",
                        "3.0 MiB",
                        "events/s per core: median (min-max)",
                        "events/s: median (min-max)")
                .doesNotContain("`falcon`", "–");
        assertThat(report.markdown())
                .contains(
                        "| `falcon` ",
                        "250 (200–300)",
                        "500 (400–600)",
                        "events/s per core, median (min–max)",
                        "events/s, median (min–max)",
                        "ckpt sync p50 ms",
                        "ckpt sync max ms");
        assertThat(report.sideBySide()).contains("falcon / rocksdb", "2.27x");
        assertThat(report.summaryCsv().split("\n")[2])
                .startsWith("q4,off,1,falcon,a=1;b=2,3,1,250.000");
    }

    @Test
    void runsStoppedAtTheTimeLimitAreListedWithTheirWindowAndStayOutOfTheMedians() {
        Properties progress = new Properties();
        progress.setProperty("warmup_events", "10000000");
        progress.setProperty("window_events", "35000000");
        progress.setProperty("window_elapsed_ns", "1750000000000"); // 1,750 s
        progress.setProperty("window_cpu_ns", "2800000000000"); // 2,800 s on 1.6 cores
        RunRecord stopped = run("rocksdb", 2, Double.NaN, "timeout").window(progress);
        assertThat(stopped.number("events_per_s")).isEqualTo(20_000);
        assertThat(stopped.number("events_per_core_s")).isEqualTo(12_500);
        assertThat(stopped.number("cores")).isEqualTo(1.6);
        RunRecord neverOpened = run("rocksdb", 3, Double.NaN, "timeout");
        RunRecord crashed = run("falcon", 3, 50, "exit-1").set("window_events", "1");

        BenchmarkReport report =
                new BenchmarkReport(
                        Arrays.asList(
                                run("rocksdb", 1, 100, "ok"),
                                run("falcon", 1, 300, "ok"),
                                stopped,
                                run("falcon", 2, 250, "ok"),
                                neverOpened,
                                crashed));

        assertThat(report.summaries().get(0).runs()).isEqualTo(1);
        assertThat(report.summaries().get(0).median("events_per_core_s")).isEqualTo(100);
        assertThat(report.summaries().get(1).ratio()).isEqualTo(275.0 / 100);
        assertThat(report.table()).contains("1 (+1 failed, +1 stopped)", "2 (+1 failed)");
        String table = report.stoppedRuns();
        assertThat(table.split("\n")).hasSize(3); // header, rule, one run
        assertThat(table).contains("45,000,000", "1,750", "12,500", "20,000", "1.60");
        assertThat(report.markdown())
                .contains("Stopped at the time limit", " 45,000,000 |", " 12,500 |");
        assertThat(new BenchmarkReport(Arrays.asList(run("rocksdb", 1, 100, "ok"))).markdown())
                .doesNotContain("Stopped");
    }

    @Test
    void evenCountsTakeTheMeanOfTheMiddleTwoAndMissingBaselinesGiveNan() {
        BenchmarkReport report =
                new BenchmarkReport(
                        Arrays.asList(run("falcon", 1, 100, "ok"), run("falcon", 2, 300, "ok")));
        assertThat(report.summaries().get(0).median("events_per_core_s")).isEqualTo(200);
        assertThat(report.resultLines().get(0)).endsWith("ratio_vs_rocksdb=nan");
        // The tables show no ratio column or cell without stock to divide by.
        assertThat(report.sideBySide()).doesNotContain("/ rocksdb", "nan");
        assertThat(report.markdown()).doesNotContain("nan");
    }

    @Test
    void falconPhasesAndRecoveryAppearWhenRunsHaveThem() {
        // Stock: 1,000 events/s before the failure, 90% of it after 2.5 s, all of it after 3 s;
        // Falcon: 3,000 before, stock's rate after 1 s, 90% of its own (2,700) after 2 s.
        RunRecord stock =
                run("rocksdb", 1, 100, "ok")
                        .set("recovery_before_eps", 1000)
                        .set("recovery_curve", "0 0 0 0 100 100 200 200 250 250 250 250");
        RunRecord falcon =
                run("falcon", 1, 300, "ok")
                        .set("falcon_writeback_ms", 12.4)
                        .set("falcon_memtable_flush_ms", 0)
                        .set("falcon_rocksdb_sync_ms", 40.6)
                        .set("falcon_prebarrier_mib", 9.2)
                        .set("recovery_before_eps", 3000)
                        .set("recovery_curve", "250 250 250 250 700 700 700 700");
        BenchmarkReport report = new BenchmarkReport(Arrays.asList(stock, falcon));
        String md = report.markdown();
        assertThat(md).containsPattern("\\s12 / 0 / 41, 9.2 \\|").contains("Recovery after the");
        assertThat(md).containsPattern("`rocksdb`\\s+\\|\\s+1,000 \\|\\s+3.00 \\|\\s+2.50 \\|");
        assertThat(md).containsPattern("`falcon`\\s+\\|\\s+3,000 \\|\\s+1.00 \\|\\s+2.00 \\|");
        // A run that never gets there within the curve.
        falcon.set("recovery_curve", "100 100 100 100");
        assertThat(new BenchmarkReport(Arrays.asList(stock, falcon)).markdown())
                .containsPattern("`falcon`\\s+\\|\\s+3,000 \\|\\s+never \\|\\s+never \\|");
        // Without recovery runs there is no recovery table.
        assertThat(new BenchmarkReport(Arrays.asList(run("rocksdb", 1, 100, "ok"))).markdown())
                .doesNotContain("Recovery");
    }

    @Test
    void runsCsvOfAnOlderHarnessStillParses() {
        RunRecord r = run("falcon", 1, 5, "ok");
        String line = r.csvLine();
        // An older harness wrote the columns up to checkpointed_size_bytes only.
        int cut = RunRecord.COLUMNS.indexOf("checkpointed_size_bytes") + 1;
        String older = String.join(",", RunRecord.splitCsv(line).subList(0, cut));
        RunRecord back = RunRecord.parseCsv(older);
        assertThat(back.get("events_per_core_s")).isEqualTo(r.get("events_per_core_s"));
        assertThat(back.get("recovery_curve")).isEmpty();
    }

    @Test
    void runsCsvRoundTripsQuotedValues() {
        RunRecord r = run("falcon@64mb", 1, 5, "ok").set("config", "k=\"x\",y");
        RunRecord back = RunRecord.parseCsv(r.csvLine());
        assertThat(back.get("config")).isEqualTo("k=\"x\",y");
        assertThat(back.csvLine()).isEqualTo(r.csvLine());
    }

    @Test
    void sweepsBecomeFalconVariantsWithTheirConfiguration() {
        BenchmarkOptions o =
                NexmarkBenchmark.parse(
                        new String[] {
                            "--backends",
                            "rocksdb,falcon,mine=com.example.Factory",
                            "--sweep",
                            "small:state.backend.falcon.x=1mb,state.backend.falcon.y=2;big:state.backend.falcon.x=64mb",
                            "--cache-sweep",
                            "1mb,8mb"
                        });
        List<Variant> v = RunMatrix.variants(o);
        assertThat(v)
                .extracting(x -> x.label)
                .containsExactly(
                        "rocksdb",
                        "falcon",
                        "mine",
                        "falcon@cache-1mb",
                        "falcon@cache-8mb",
                        "falcon@small",
                        "falcon@big");
        assertThat(v.get(4).conf)
                .containsEntry("state.backend.falcon.cache.size-per-subtask", "8mb");
        v.remove(3);
        v.remove(3);
        assertThat(v.get(2).stateBackend).isEqualTo("com.example.Factory");
        assertThat(v.get(3).stateBackend).isEqualTo(Variant.FALCON_FACTORY);
        assertThat(v.get(3).conf)
                .containsEntry("state.backend.falcon.native.required", "true")
                .containsEntry("state.backend.falcon.x", "1mb")
                .containsEntry("state.backend.falcon.y", "2");
        assertThat(v.get(4).conf).containsEntry("state.backend.falcon.x", "64mb");
    }
}
