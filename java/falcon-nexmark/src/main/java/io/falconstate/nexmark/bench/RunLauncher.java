package io.falconstate.nexmark.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Starts one planned run in a fresh JVM ({@link NexmarkBenchmarkMain}, every run with the same JVM
 * settings) and collects what it measured into the run's {@link RunRecord}. The run's directory
 * holds its log ({@code run.log}: the command, then the JVM's output) and its result file; its
 * checkpoints and temporary files are deleted after the run.
 */
final class RunLauncher {
    private final BenchmarkOptions o;

    RunLauncher(BenchmarkOptions o) {
        this.o = o;
    }

    /** The command that runs {@code run} with {@code dir} as its output directory. */
    List<String> command(RunMatrix.Run run, Path dir) {
        List<String> cmd = new ArrayList<>();
        cmd.add(o.java);
        cmd.addAll(moduleFlags());
        cmd.add("-Xms" + o.heap);
        cmd.add("-Xmx" + o.heap);
        cmd.add("-XX:+UseG1GC");
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        if (!o.nativeLibrary.isEmpty()) {
            cmd.add("-Dfalcon.native.library=" + o.nativeLibrary);
        }
        cmd.add("-Dlog4j.configurationFile=nexmark-bench-log4j2.properties");
        cmd.addAll(o.jvmOpts);
        cmd.add("-cp");
        cmd.add(o.classpath);
        cmd.add(NexmarkBenchmarkMain.class.getName());
        cmd.addAll(
                Arrays.asList(
                        "--result-file",
                        dir.resolve("result.properties").toString(),
                        "--query",
                        run.query,
                        "--events",
                        Long.toString(o.events),
                        "--parallelism",
                        Integer.toString(run.parallelism),
                        "--state-backend",
                        run.variant.stateBackend,
                        "--checkpoint-interval-ms",
                        Long.toString(o.checkpointIntervalMillis),
                        "--mini-batch",
                        run.miniBatchName(),
                        "--output",
                        dir.toString(),
                        "--sink",
                        "blackhole",
                        "--warmup",
                        Double.toString(o.warmup)));
        Map<String, String> conf = RunMatrix.commonConf(o);
        conf.putAll(run.variant.conf);
        for (Map.Entry<String, String> e : conf.entrySet()) {
            cmd.add("--conf");
            cmd.add(e.getKey() + "=" + e.getValue());
        }
        for (Map.Entry<String, String> e : o.source.entrySet()) {
            cmd.add("--source");
            cmd.add(e.getKey() + "=" + e.getValue());
        }
        if (o.failAfterEvents > 0) {
            // One marker per run: the failure fires once in it, and again in the next run.
            cmd.addAll(
                    Arrays.asList(
                            "--source",
                            "failure.after-events=" + o.failAfterEvents,
                            "--source",
                            "failure.marker=" + dir.resolve("failure.marker"),
                            "--restart-attempts",
                            "1"));
        }
        return cmd;
    }

    /** The --add-opens/--add-exports flags of this JVM (Flink on Java 17 needs them). */
    static List<String> moduleFlags() {
        List<String> flags = new ArrayList<>();
        List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith("--add-opens=") || a.startsWith("--add-exports=")) {
                flags.add(a);
            } else if ((a.equals("--add-opens") || a.equals("--add-exports"))
                    && i + 1 < args.size()) {
                flags.add(a + "=" + args.get(++i));
            }
        }
        return flags;
    }

    /**
     * Runs {@code cmd} in {@code dir} (killed after the run timeout) and fills {@code r}: start
     * time and load, the measured figures and status {@code ok}; or status {@code timeout} with the
     * window as far as it got (the run's last progress file, if its window had opened); or status
     * {@code exit-N}.
     */
    void launch(RunRecord r, List<String> cmd, Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path log = dir.resolve("run.log");
        Files.write(log, (String.join(" ", cmd) + "\n\n").getBytes(StandardCharsets.UTF_8));
        r.set("started_utc", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        r.set("load1_start", HostFacts.loadAverage().split(" ")[0]);
        Process proc =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
        boolean done = proc.waitFor(o.runTimeoutSeconds, TimeUnit.SECONDS);
        if (!done) {
            proc.destroyForcibly().waitFor();
        }
        r.set("load1_end", HostFacts.loadAverage().split(" ")[0]);
        Path result = dir.resolve("result.properties");
        Path progress = NexmarkBenchmarkMain.progressFile(result);
        if (done && proc.exitValue() == 0 && Files.exists(result)) {
            r.measured(load(result)).set("status", "ok");
        } else if (!done) {
            if (Files.exists(progress)) {
                r.window(load(progress));
            }
            r.set("status", "timeout");
        } else {
            r.set("status", "exit-" + proc.exitValue());
        }
        deleteTree(dir.resolve("checkpoints"));
        deleteTree(dir.resolve("tmp"));
    }

    private static Properties load(Path file) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        }
        return p;
    }

    /** The distinct {@code [FALCON]} lines of a run's log, in order; null if there is no log. */
    static Set<String> falconLines(Path log) throws IOException {
        if (!Files.exists(log)) {
            return null;
        }
        Set<String> lines = new LinkedHashSet<>();
        for (String l : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (l.contains("[FALCON]")) {
                lines.add(l);
            }
        }
        return lines;
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            s.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        }
    }
}
