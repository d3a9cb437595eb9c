package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.NexmarkRunOptions;
import io.falconstate.nexmark.NexmarkRunResult;
import io.falconstate.nexmark.NexmarkRunner;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * One benchmark run in this JVM (the {@link NexmarkBenchmark} launcher forks a fresh JVM per
 * run): {@code --result-file FILE} plus any {@link NexmarkRunner} option. Runs the query with the
 * blackhole sink and writes the run's figures to FILE as properties ({@link RunRecord} reads
 * them); prints the runner's summary line.
 */
public final class NexmarkBenchmarkMain {
  private NexmarkBenchmarkMain() {}

  public static void main(String[] args) throws Exception {
    Path resultFile = null;
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--result-file") && i + 1 < args.length) {
        resultFile = Paths.get(args[++i]);
      } else {
        rest.add(args[i]);
      }
    }
    if (resultFile == null) {
      throw new IllegalArgumentException("--result-file is required");
    }
    NexmarkRunOptions o = new NexmarkRunOptions().sink(NexmarkRunOptions.Sink.BLACKHOLE);
    NexmarkRunner.parseArgs(rest.toArray(new String[0]), o);
    NexmarkRunResult r = NexmarkRunner.run(o);
    System.out.println(r.summary());
    Properties p = properties(r);
    Path tmp = resultFile.resolveSibling(resultFile.getFileName() + ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp)) {
      p.store(out, "nexmark benchmark run");
    }
    Files.move(tmp, resultFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    // Flink's non-daemon threads (e.g. the MiniCluster's executors) must not keep the fork alive.
    System.exit(0);
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
    p.setProperty("ckpt_total_ms", fmt(r.checkpoints().avgEndToEndMillis()));
    p.setProperty("ckpt_total_max_ms", Long.toString(r.checkpoints().maxEndToEndMillis()));
    p.setProperty("state_size_bytes", Long.toString(r.checkpoints().lastStateSize()));
    p.setProperty("checkpointed_size_bytes", Long.toString(r.checkpoints().lastCheckpointedSize()));
    return p;
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
