package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.NexmarkRunOptions;
import io.falconstate.nexmark.NexmarkRunResult;
import io.falconstate.nexmark.NexmarkRunner;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;

/**
 * One benchmark run in this JVM (the {@link NexmarkBenchmark} launcher forks a fresh JVM per run):
 * {@code --result-file FILE} plus {@link NexmarkRunner}'s options ({@link RunnerOptions}), the sink
 * defaulting to the blackhole. Runs the query and writes the run's figures to FILE as properties
 * ({@link RunRecord} reads them); prints the runner's summary line.
 */
@Command(
        name = "NexmarkBenchmarkMain",
        sortOptions = false,
        showDefaultValues = true,
        customSynopsis = "NexmarkBenchmarkMain --result-file=FILE --query=NAME [OPTIONS]",
        usageHelpWidth = 100,
        optionListHeading = "%nOptions:%n",
        description =
                "One run of the Nexmark benchmark harness (NexmarkBenchmark forks one JVM per"
                        + " run): runs the query and writes its figures to the result file.")
public final class NexmarkBenchmarkMain implements Callable<Integer> {
    @Option(
            names = "--result-file",
            paramLabel = "FILE",
            required = true,
            order = 0,
            description = "Where the run's figures go (Java properties).")
    Path resultFile;

    @Mixin final RunnerOptions run = new RunnerOptions(NexmarkRunOptions.Sink.BLACKHOLE);

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            order = 99,
            description = "Print this help and exit.")
    boolean help;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        NexmarkRunResult r = NexmarkRunner.run(Cli.validated(spec, run::toRunOptions));
        System.out.println(r.summary());
        Properties p = properties(r);
        Path tmp = resultFile.resolveSibling(resultFile.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            p.store(out, "nexmark benchmark run");
        }
        Files.move(
                tmp,
                resultFile,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return 0;
    }

    public static void main(String[] args) {
        // Exits even when the run succeeded: Flink's non-daemon threads (e.g. the MiniCluster's
        // executors) must not keep the fork alive.
        System.exit(Cli.execute(new NexmarkBenchmarkMain(), args));
    }

    static Properties properties(NexmarkRunResult r) {
        Properties p = new Properties();
        p.setProperty("backend_class", r.stateBackendClass());
        p.setProperty("events", Long.toString(r.events()));
        p.setProperty("elapsed_ns", Long.toString(r.elapsedNanos()));
        p.setProperty("cpu_ns", Long.toString(r.cpuNanos()));
        p.setProperty("window_events", Long.toString(r.window().events()));
        p.setProperty("warmup_events", Long.toString(r.window().warmupEvents()));
        p.setProperty("window_elapsed_ns", Long.toString(r.window().elapsedNanos()));
        p.setProperty("window_cpu_ns", Long.toString(r.window().cpuNanos()));
        p.setProperty("warmup_observed", Boolean.toString(r.window().warmupObserved()));
        p.setProperty("checkpoints", Long.toString(r.checkpoints().completed()));
        p.setProperty("ckpt_sync_ms", fmt(r.checkpoints().avgSyncMillis()));
        p.setProperty("ckpt_sync_max_ms", Long.toString(r.checkpoints().maxSyncMillis()));
        p.setProperty("ckpt_total_ms", fmt(r.checkpoints().avgEndToEndMillis()));
        p.setProperty("ckpt_total_max_ms", Long.toString(r.checkpoints().maxEndToEndMillis()));
        p.setProperty("state_size_bytes", Long.toString(r.checkpoints().lastStateSize()));
        p.setProperty(
                "checkpointed_size_bytes", Long.toString(r.checkpoints().lastCheckpointedSize()));
        return p;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
