package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.FalconPhases;
import io.falconstate.nexmark.MeasuredWindow;
import io.falconstate.nexmark.NexmarkRunOptions;
import io.falconstate.nexmark.NexmarkRunResult;
import io.falconstate.nexmark.NexmarkRunner;
import io.falconstate.nexmark.RecoveryTimeline;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
    /** How often a run's window so far goes to its progress file. */
    static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(5);

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
        NexmarkRunOptions options = Cli.validated(spec, run::toRunOptions);
        Path progressFile = progressFile(resultFile);
        options.progressListener(w -> writeProgress(w, progressFile), PROGRESS_INTERVAL);
        NexmarkRunResult r = NexmarkRunner.run(options);
        System.out.println(r.summary());
        store(properties(r, options.parallelism()), resultFile, "nexmark benchmark run");
        return 0;
    }

    /**
     * The file next to {@code resultFile} that holds the run's measured window so far ({@link
     * #windowProperties}), rewritten every {@link #PROGRESS_INTERVAL}: what is left of a run that
     * the launcher stops at its time limit.
     */
    static Path progressFile(Path resultFile) {
        return resultFile.resolveSibling("progress.properties");
    }

    private static void writeProgress(MeasuredWindow w, Path file) {
        Properties p = new Properties();
        windowProperties(w, p);
        try {
            store(p, file, "nexmark benchmark run in progress");
        } catch (IOException e) {
            // the run goes on; only an unfinished run would miss these figures
            System.err.println("cannot write " + file + ": " + e);
        }
    }

    /** Writes {@code p} to {@code file} by an atomic rename (readers never see half a file). */
    private static void store(Properties p, Path file, String comment) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            p.store(out, comment);
        }
        Files.move(
                tmp,
                file,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    public static void main(String[] args) {
        // Exits even when the run succeeded: Flink's non-daemon threads (e.g. the MiniCluster's
        // executors) must not keep the fork alive.
        System.exit(Cli.execute(new NexmarkBenchmarkMain(), args));
    }

    static Properties properties(NexmarkRunResult r, int parallelism) {
        Properties p = new Properties();
        p.setProperty("backend_class", r.stateBackendClass());
        p.setProperty("events", Long.toString(r.events()));
        p.setProperty("elapsed_ns", Long.toString(r.elapsedNanos()));
        p.setProperty("cpu_ns", Long.toString(r.cpuNanos()));
        windowProperties(r.window(), p);
        p.setProperty("checkpoints", Long.toString(r.checkpoints().completed()));
        p.setProperty("ckpt_sync_ms", fmt(r.checkpoints().avgSyncMillis()));
        p.setProperty("ckpt_sync_max_ms", Long.toString(r.checkpoints().maxSyncMillis()));
        p.setProperty("ckpt_sync_p50_ms", fmt(r.checkpoints().medianSyncMillis()));
        p.setProperty("ckpt_total_ms", fmt(r.checkpoints().avgEndToEndMillis()));
        p.setProperty("ckpt_total_max_ms", Long.toString(r.checkpoints().maxEndToEndMillis()));
        p.setProperty("state_size_bytes", Long.toString(r.checkpoints().lastStateSize()));
        p.setProperty(
                "checkpointed_size_bytes", Long.toString(r.checkpoints().lastCheckpointedSize()));
        RecoveryTimeline.Recovery recovery = r.recovery();
        if (recovery != null) {
            p.setProperty("recovery_before_eps", fmt(recovery.eventsPerSecondBefore()));
            StringBuilder curve = new StringBuilder();
            for (long c : recovery.bucketEvents()) {
                curve.append(curve.length() == 0 ? "" : " ").append(c);
            }
            p.setProperty("recovery_curve", curve.toString());
        }
        FalconPhases phases = r.falconPhases();
        if (phases.present()) {
            p.setProperty("falcon_writeback_ms", fmt(phases.writeBackMs(parallelism)));
            p.setProperty("falcon_memtable_flush_ms", fmt(phases.memtableFlushMs(parallelism)));
            p.setProperty("falcon_rocksdb_sync_ms", fmt(phases.rocksDbSyncMs(parallelism)));
            p.setProperty("falcon_prebarrier_mib", fmt(phases.preBarrierMib(parallelism)));
        }
        return p;
    }

    /** The measured window's figures, as {@link RunRecord#window} reads them. */
    static void windowProperties(MeasuredWindow w, Properties p) {
        p.setProperty("window_events", Long.toString(w.events()));
        p.setProperty("warmup_events", Long.toString(w.warmupEvents()));
        p.setProperty("window_elapsed_ns", Long.toString(w.elapsedNanos()));
        p.setProperty("window_cpu_ns", Long.toString(w.cpuNanos()));
        p.setProperty("warmup_observed", Boolean.toString(w.warmupObserved()));
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
