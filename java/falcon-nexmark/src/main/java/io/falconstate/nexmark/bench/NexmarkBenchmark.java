package io.falconstate.nexmark.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The Nexmark benchmark harness (docs/benchmarks.md): runs every (query, mini-batch, parallelism,
 * backend) of the matrix {@code reps} times ({@link RunMatrix}), each run in a fresh JVM ({@link
 * RunLauncher}), and writes the runs CSV ({@link RunsCsv}), the summary CSV, a markdown snippet
 * ({@link ResultsMarkdown}), the text tables and the {@code RESULT} lines ({@link
 * BenchmarkReport}).
 *
 * <p>Backends: {@code rocksdb}, {@code hashmap}, {@code falcon} (the Falcon factory with {@code
 * state.backend.falcon.native.required: true}, so a missing native library fails the run instead of
 * measuring stock RocksDB), or {@code label=<state.backend value>}. {@code --sweep
 * label:key=value,key=value} adds a Falcon variant {@code falcon@label} with those Flink
 * configuration entries (e.g. cache sizes; the keys are whatever docs/configuration.md names).
 * Every run gets the same memory settings, incremental checkpoints ({@code
 * state.backend.incremental: true}; the heap backend always snapshots fully) and the blackhole
 * sink. Options: {@link BenchmarkOptions}, or {@code --help}.
 */
@Command(
        name = "NexmarkBenchmark",
        sortOptions = false,
        showDefaultValues = true,
        abbreviateSynopsis = true,
        usageHelpWidth = 100,
        optionListHeading = "%nOptions:%n",
        description = {
            "Runs the Nexmark benchmark matrix (docs/benchmarks.md, \"Nexmark\"): every"
                    + " query x mini-batch x parallelism x backend, --reps times, each run in a fresh JVM,"
                    + " backends interleaved; writes nexmark_runs.csv, nexmark_summary.csv and"
                    + " nexmark_results.md to --output."
        },
        footer = {
            "",
            "Exit code: 0 if every run succeeded, 1 if a run failed, 2 for invalid" + " arguments."
        })
public final class NexmarkBenchmark implements Callable<Integer> {
    @Mixin final BenchmarkOptions options = new BenchmarkOptions();

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            order = 99,
            description = "Print this help and exit.")
    boolean help;

    @Spec CommandSpec spec;

    /** What a harness invocation produced. */
    public static final class Outcome {
        public final List<RunRecord> runs;
        public final BenchmarkReport report;
        public final Path runsCsv;
        public final Path summaryCsv;
        public final Path markdown;

        Outcome(
                List<RunRecord> runs,
                BenchmarkReport report,
                Path runsCsv,
                Path summaryCsv,
                Path markdown) {
            this.runs = runs;
            this.report = report;
            this.runsCsv = runsCsv;
            this.summaryCsv = summaryCsv;
            this.markdown = markdown;
        }
    }

    /**
     * The options of a command line, checked as {@link #main} checks them.
     *
     * @throws ParameterException for invalid arguments, with the message {@code main} prints
     */
    public static BenchmarkOptions parse(String... args) {
        NexmarkBenchmark command = new NexmarkBenchmark();
        CommandLine cl = Cli.commandLine(command);
        cl.parseArgs(args);
        Cli.check(command.spec, command.options::validate);
        return command.options;
    }

    @Override
    public Integer call() throws Exception {
        Cli.check(spec, options::validate);
        Outcome r = run(options);
        return r.runs.stream().allMatch(RunRecord::ok) ? 0 : 1;
    }

    /** Runs the whole matrix and writes the outputs. */
    public static Outcome run(BenchmarkOptions o) throws Exception {
        RunMatrix matrix = RunMatrix.of(o);
        RunLauncher launcher = new RunLauncher(o);
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Path work = o.work.resolve("run-" + started.toString().replace(':', '-'));
        Files.createDirectories(work);
        Files.createDirectories(o.out);
        Path runsCsv = o.out.resolve("nexmark_runs.csv");
        Path summaryCsv = o.out.resolve("nexmark_summary.csv");
        Path markdown = o.out.resolve("nexmark_results.md");
        int total = matrix.runs.size();
        String load0 = HostFacts.loadAverage();
        System.out.printf(
                Locale.ROOT,
                "Nexmark benchmark: %d runs (%d reps x queries %s x mini-batch %s x p %s x backends %s),"
                        + " %,d events, warm-up %.0f%%, checkpoints every %d ms, heap %s, managed %s;"
                        + " load average %s; work dir %s%n",
                total,
                o.reps,
                o.queries,
                onOff(o.miniBatch),
                o.parallelism,
                matrix.labels(),
                o.events,
                o.warmup * 100,
                o.checkpointIntervalMillis,
                o.heap,
                o.managedMemory,
                load0,
                work);
        List<RunRecord> runs = new ArrayList<>();
        if (!o.dryRun) {
            RunsCsv.write(runsCsv, runs);
        }
        boolean falconLinesShown = false;
        for (RunMatrix.Run run : matrix.runs) {
            Path dir = work.resolve(run.id());
            RunRecord r = run.record(o.events);
            List<String> cmd = launcher.command(run, dir);
            if (o.dryRun) {
                System.out.println(String.join(" ", cmd));
                continue;
            }
            System.out.printf(
                    Locale.ROOT,
                    "[%d/%d] %s minibatch=%s p=%d backend=%s rep=%d ... ",
                    run.n,
                    total,
                    run.query,
                    run.miniBatchName(),
                    run.parallelism,
                    run.variant.label,
                    run.rep);
            System.out.flush();
            launcher.launch(r, cmd, dir);
            runs.add(r);
            RunsCsv.write(runsCsv, runs);
            System.out.println(
                    r.ok()
                            ? String.format(
                                    Locale.ROOT,
                                    "%,.0f events/s per core, %,.0f events/s, %.2f cores, %s checkpoints (load %s)",
                                    r.number("events_per_core_s"),
                                    r.number("events_per_s"),
                                    r.number("cores"),
                                    r.get("checkpoints"),
                                    r.get("load1_start"))
                            : "FAILED ("
                                    + r.get("status")
                                    + (r.get("events_per_core_s").isEmpty()
                                            ? ""
                                            : "; "
                                                    + r.get("events_per_core_s")
                                                    + " events/s per core until then")
                                    + "; see "
                                    + dir.resolve("run.log")
                                    + ")");
            if (o.falconLines > 0 && run.variant.falcon() && !falconLinesShown) {
                falconLinesShown = printFalconLines(dir.resolve("run.log"), o.falconLines);
            }
        }
        if (o.dryRun) {
            return new Outcome(runs, new BenchmarkReport(runs), runsCsv, summaryCsv, markdown);
        }
        BenchmarkReport report = new BenchmarkReport(runs);
        String load1 = HostFacts.loadAverage();
        Files.write(summaryCsv, report.summaryCsv().getBytes(StandardCharsets.UTF_8));
        Files.write(
                markdown,
                ResultsMarkdown.of(o, matrix.variants, report, started, load0, load1)
                        .getBytes(StandardCharsets.UTF_8));
        System.out.println();
        System.out.print(report.table());
        System.out.println();
        System.out.print(report.sideBySide());
        System.out.println();
        if (!report.stoppedRuns().isEmpty()) {
            System.out.println("Stopped at the time limit (not in the medians):");
            System.out.print(report.stoppedRuns());
            System.out.println();
        }
        for (String line : report.resultLines()) {
            System.out.println(line);
        }
        System.out.printf(
                "%nload average at the end: %s%nwrote %s, %s, %s%n",
                load1, runsCsv, summaryCsv, markdown);
        return new Outcome(runs, report, runsCsv, summaryCsv, markdown);
    }

    private static boolean printFalconLines(Path log, int max) throws Exception {
        Set<String> lines = RunLauncher.falconLines(log);
        if (lines == null) {
            return false;
        }
        System.out.println("    [FALCON] lines of this run (" + log + "):");
        int k = 0;
        for (String l : lines) {
            if (k++ >= max) {
                System.out.println("      ... (" + (lines.size() - max) + " more)");
                break;
            }
            System.out.println("      " + l);
        }
        if (lines.isEmpty()) {
            System.out.println("      (none)");
        }
        return true;
    }

    private static List<String> onOff(List<Boolean> v) {
        List<String> l = new ArrayList<>();
        for (boolean b : v) {
            l.add(b ? "on" : "off");
        }
        return l;
    }

    /** Exit code 0 if every run succeeded, 1 if one failed, 2 for invalid arguments. */
    public static void main(String[] args) {
        System.exit(Cli.execute(new NexmarkBenchmark(), args));
    }
}
