package io.falconstate.nexmark.bench;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code nexmark_results.md}: the markdown snippet docs/benchmarks.md quotes, i.e. the machine, the
 * load, the workload and every run's settings, the command, the report's table and the {@code
 * RESULT} lines.
 */
final class ResultsMarkdown {
    private ResultsMarkdown() {}

    static String of(
            BenchmarkOptions o,
            List<Variant> variants,
            BenchmarkReport report,
            Instant started,
            String load0,
            String load1) {
        StringBuilder b = new StringBuilder();
        b.append(
                "<!-- written by io.falconstate.nexmark.bench.NexmarkBenchmark; do not edit -->\n");
        b.append("### ").append(o.title).append(" results, ").append(started).append("\n\n");
        b.append("- Machine: ").append(HostFacts.machine()).append("\n");
        b.append(
                String.format(
                        Locale.ROOT,
                        "- Load average (1, 5, 15 min): %s at the start, %s at the end%n",
                        load0,
                        load1));
        b.append(
                String.format(
                        Locale.ROOT,
                        "- Workload: %,d events per run, first %.0f%% warm-up (not measured), blackhole sink,"
                                + " %d repetition(s), backends interleaved, one fresh JVM per run%n",
                        o.events,
                        o.warmup * 100,
                        o.reps));
        b.append(
                String.format(
                        Locale.ROOT,
                        "- Every run: JVM -Xms%s -Xmx%s G1, one TaskManager with p slots,"
                                + " checkpoints every %d ms; Flink configuration:",
                        o.heap,
                        o.heap,
                        o.checkpointIntervalMillis));
        for (Map.Entry<String, String> e : RunMatrix.commonConf(o).entrySet()) {
            b.append(" `").append(e.getKey()).append(": ").append(e.getValue()).append('`');
        }
        b.append("\n- Backends:");
        for (Variant v : variants) {
            b.append(" `").append(v.label).append("` = `").append(v.stateBackend).append('`');
            if (!v.conf.isEmpty()) {
                b.append(" (").append(v.confString().replace(";", ", ")).append(')');
            }
            b.append(';');
        }
        b.append("\n");
        if (!o.command.isEmpty()) {
            b.append("- Command: `").append(o.command).append("`\n");
        }
        b.append("\n").append(report.markdown()).append("\n```\n");
        for (String l : report.resultLines()) {
            b.append(l).append('\n');
        }
        b.append("```\n");
        return b.toString();
    }
}
