package io.falconstate.nexmark.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Nexmark benchmark harness (issue 9, docs/benchmarks.md): runs every (query, mini-batch,
 * parallelism, backend) of the matrix {@code reps} times, each run in a fresh JVM ({@link
 * NexmarkBenchmarkMain}), backends interleaved (A B C A B C: the repetition is the outer loop),
 * and writes the runs CSV, the summary CSV, a markdown snippet, the text tables and the {@code
 * RESULT} lines.
 *
 * <p>Backends: {@code rocksdb}, {@code hashmap}, {@code falcon} (the Falcon factory with {@code
 * state.backend.falcon.native.required: true}, so a missing native library fails the run instead
 * of measuring stock RocksDB), or {@code label=<state.backend value>}. {@code --sweep
 * label:key=value,key=value} adds a Falcon variant {@code falcon@label} with those Flink
 * configuration entries (e.g. cache sizes; the keys are whatever docs/configuration.md names).
 * Every run gets the same memory settings, incremental checkpoints ({@code
 * state.backend.incremental: true}; the heap backend always snapshots fully) and the blackhole
 * sink. See {@link #usage()}.
 */
public final class NexmarkBenchmark {
  static final String FALCON_FACTORY = "io.falconstate.flink.FalconStateBackendFactory";

  /** The Falcon option {@code --cache-sweep} sets (docs/configuration.md); {@code --cache-size-key}. */
  static final String DEFAULT_CACHE_SIZE_KEY = "state.backend.falcon.cache.size-per-subtask";

  /** One backend configuration of the matrix. */
  static final class Variant {
    final String label;
    final String stateBackend;
    final Map<String, String> conf = new LinkedHashMap<>();

    Variant(String label, String stateBackend) {
      this.label = label;
      this.stateBackend = stateBackend;
    }

    boolean falcon() {
      return stateBackend.equals(FALCON_FACTORY);
    }

    String confString() {
      StringBuilder b = new StringBuilder();
      for (Map.Entry<String, String> e : conf.entrySet()) {
        b.append(b.length() == 0 ? "" : ";").append(e.getKey()).append('=').append(e.getValue());
      }
      return b.toString();
    }
  }

  /** Harness options (command line in {@link #usage()}). */
  public static final class Options {
    List<String> queries = Arrays.asList("q4", "q17", "q15_bidder", "q20", "q3", "q5");
    long events = 10_000_000L;
    int reps = 3;
    List<String> backends = Arrays.asList("rocksdb", "falcon", "hashmap");
    List<Boolean> miniBatch = Arrays.asList(false, true);
    List<Integer> parallelism = Arrays.asList(1, 2);
    final List<String> sweeps = new ArrayList<>();
    final List<String> cacheSweep = new ArrayList<>();
    String cacheSizeKey = DEFAULT_CACHE_SIZE_KEY;
    final Map<String, String> falconConf = new LinkedHashMap<>();
    final Map<String, String> conf = new LinkedHashMap<>();
    final Map<String, String> source = new LinkedHashMap<>();
    long checkpointIntervalMillis = 10_000L;
    double warmup = 0.2;
    String heap = "2g";
    String managedMemory = "512m";
    String nativeLibrary = System.getProperty("falcon.native.library", "");
    Path out = Paths.get("docs/benchmarks");
    Path work = Paths.get("build/nexmark-bench");
    String classpath = defaultClasspath();
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    final List<String> jvmOpts = new ArrayList<>();
    long runTimeoutSeconds = 3600;
    int falconLines = 0;
    boolean dryRun;
    String title = "Nexmark";
    String command = "";

    public Options queries(String... v) {
      queries = Arrays.asList(v);
      return this;
    }

    public Options events(long v) {
      events = v;
      return this;
    }

    public Options reps(int v) {
      reps = v;
      return this;
    }

    public Options backends(String... v) {
      backends = Arrays.asList(v);
      return this;
    }

    public Options miniBatch(Boolean... v) {
      miniBatch = Arrays.asList(v);
      return this;
    }

    public Options parallelism(Integer... v) {
      parallelism = Arrays.asList(v);
      return this;
    }

    public Options sweep(String v) {
      sweeps.add(v);
      return this;
    }

    public Options conf(String key, String value) {
      conf.put(key, value);
      return this;
    }

    public Options checkpointIntervalMillis(long v) {
      checkpointIntervalMillis = v;
      return this;
    }

    public Options out(Path v) {
      out = v;
      return this;
    }

    public Options work(Path v) {
      work = v;
      return this;
    }

    public Options heap(String v) {
      heap = v;
      return this;
    }

    public Options nativeLibrary(String v) {
      nativeLibrary = v;
      return this;
    }

    public Options classpath(String v) {
      classpath = v;
      return this;
    }
  }

  /** What a harness invocation produced. */
  public static final class Outcome {
    public final List<RunRecord> runs;
    public final BenchmarkReport report;
    public final Path runsCsv;
    public final Path summaryCsv;
    public final Path markdown;

    Outcome(List<RunRecord> runs, BenchmarkReport report, Path runsCsv, Path summaryCsv,
        Path markdown) {
      this.runs = runs;
      this.report = report;
      this.runsCsv = runsCsv;
      this.summaryCsv = summaryCsv;
      this.markdown = markdown;
    }
  }

  private NexmarkBenchmark() {}

  /** Surefire's real test classpath when forked from a test, else this JVM's classpath. */
  static String defaultClasspath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isEmpty() ? cp : System.getProperty("java.class.path");
  }

  static List<Variant> variants(Options o) {
    List<Variant> v = new ArrayList<>();
    for (String b : o.backends) {
      Variant x;
      switch (b) {
        case "rocksdb":
        case "hashmap":
          x = new Variant(b, b);
          break;
        case "falcon":
          x = falconVariant("falcon", o);
          break;
        default:
          int eq = b.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException(
                "backend must be rocksdb, hashmap, falcon or label=<state.backend>: " + b);
          }
          x = new Variant(b.substring(0, eq), b.substring(eq + 1));
      }
      v.add(x);
    }
    List<String> sweeps = new ArrayList<>();
    for (String size : o.cacheSweep) {
      sweeps.add("cache-" + size + ":" + o.cacheSizeKey + "=" + size);
    }
    sweeps.addAll(o.sweeps);
    for (String s : sweeps) {
      int colon = s.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("sweep must be label:key=value[,key=value...]: " + s);
      }
      Variant x = falconVariant("falcon@" + s.substring(0, colon), o);
      for (String kv : s.substring(colon + 1).split(",")) {
        if (!kv.trim().isEmpty()) {
          int eq = kv.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException("not key=value: " + kv + " in " + s);
          }
          x.conf.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
      }
      v.add(x);
    }
    Set<String> labels = new LinkedHashSet<>();
    for (Variant x : v) {
      if (!labels.add(x.label)) {
        throw new IllegalArgumentException("duplicate backend label " + x.label);
      }
    }
    return v;
  }

  private static Variant falconVariant(String label, Options o) {
    Variant x = new Variant(label, FALCON_FACTORY);
    x.conf.put("state.backend.falcon.native.required", "true");
    x.conf.putAll(o.falconConf);
    return x;
  }

  /** The Flink configuration every run shares (memory, checkpointing), before per-run entries. */
  static Map<String, String> commonConf(Options o) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("taskmanager.memory.managed.size", o.managedMemory);
    c.put("state.backend.incremental", "true");
    c.put("state.backend.local-recovery", "false");
    c.putAll(o.conf);
    return c;
  }

  /** Runs the whole matrix and writes the outputs. */
  public static Outcome run(Options o) throws Exception {
    List<Variant> variants = variants(o);
    Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Path work = o.work.resolve("run-" + started.toString().replace(':', '-'));
    Files.createDirectories(work);
    Files.createDirectories(o.out);
    Path runsCsv = o.out.resolve("nexmark_runs.csv");
    Path summaryCsv = o.out.resolve("nexmark_summary.csv");
    Path markdown = o.out.resolve("nexmark_results.md");
    int total = o.reps * o.queries.size() * o.miniBatch.size() * o.parallelism.size()
        * variants.size();
    String load0 = loadAverage();
    System.out.printf(Locale.ROOT,
        "Nexmark benchmark: %d runs (%d reps x queries %s x mini-batch %s x p %s x backends %s),"
            + " %,d events, warm-up %.0f%%, checkpoints every %d ms, heap %s, managed %s;"
            + " load average %s; work dir %s%n",
        total, o.reps, o.queries, onOff(o.miniBatch), o.parallelism, labels(variants), o.events,
        o.warmup * 100, o.checkpointIntervalMillis, o.heap, o.managedMemory, load0, work);
    List<RunRecord> runs = new ArrayList<>();
    if (!o.dryRun) {
      writeRunsCsv(runsCsv, runs);
    }
    int n = 0;
    boolean falconLinesShown = false;
    for (int rep = 1; rep <= o.reps; rep++) {
      for (String query : o.queries) {
        for (boolean mb : o.miniBatch) {
          for (int p : o.parallelism) {
            for (Variant v : variants) {
              n++;
              String id = String.format(Locale.ROOT, "%03d-%s-mb%s-p%d-%s-r%d", n, query,
                  mb ? "on" : "off", p, v.label.replaceAll("[^A-Za-z0-9._-]", "_"), rep);
              RunRecord r = new RunRecord()
                  .set("run", id).set("rep", rep).set("query", query)
                  .set("minibatch", mb ? "on" : "off").set("p", p).set("backend", v.label)
                  .set("state_backend", v.stateBackend).set("config", v.confString())
                  .set("events", o.events);
              List<String> cmd = command(o, v, query, mb, p, work.resolve(id));
              if (o.dryRun) {
                System.out.println(String.join(" ", cmd));
                continue;
              }
              System.out.printf(Locale.ROOT, "[%d/%d] %s minibatch=%s p=%d backend=%s rep=%d ... ",
                  n, total, query, mb ? "on" : "off", p, v.label, rep);
              System.out.flush();
              runOne(o, r, cmd, work.resolve(id));
              runs.add(r);
              writeRunsCsv(runsCsv, runs);
              System.out.println(r.ok()
                  ? String.format(Locale.ROOT,
                      "%,.0f events/s per core, %,.0f events/s, %.2f cores, %s checkpoints (load %s)",
                      r.number("events_per_core_s"), r.number("events_per_s"), r.number("cores"),
                      r.get("checkpoints"), r.get("load1_start"))
                  : "FAILED (" + r.get("status") + "; see " + work.resolve(id).resolve("run.log")
                      + ")");
              if (o.falconLines > 0 && v.falcon() && !falconLinesShown) {
                falconLinesShown = printFalconLines(work.resolve(id).resolve("run.log"),
                    o.falconLines);
              }
            }
          }
        }
      }
    }
    if (o.dryRun) {
      return new Outcome(runs, new BenchmarkReport(runs), runsCsv, summaryCsv, markdown);
    }
    BenchmarkReport report = new BenchmarkReport(runs);
    String load1 = loadAverage();
    Files.write(summaryCsv, report.summaryCsv().getBytes(StandardCharsets.UTF_8));
    Files.write(markdown, markdown(o, variants, report, started, load0, load1)
        .getBytes(StandardCharsets.UTF_8));
    System.out.println();
    System.out.print(report.table());
    System.out.println();
    System.out.print(report.sideBySide());
    System.out.println();
    for (String line : report.resultLines()) {
      System.out.println(line);
    }
    System.out.printf("%nload average at the end: %s%nwrote %s, %s, %s%n", load1, runsCsv,
        summaryCsv, markdown);
    return new Outcome(runs, report, runsCsv, summaryCsv, markdown);
  }

  static List<String> command(Options o, Variant v, String query, boolean mb, int p, Path dir) {
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
    cmd.addAll(Arrays.asList("--result-file", dir.resolve("result.properties").toString(),
        "--query", query, "--events", Long.toString(o.events), "--parallelism",
        Integer.toString(p), "--state-backend", v.stateBackend, "--checkpoint-interval-ms",
        Long.toString(o.checkpointIntervalMillis), "--mini-batch", Boolean.toString(mb),
        "--output", dir.toString(), "--sink", "blackhole", "--warmup", Double.toString(o.warmup)));
    Map<String, String> conf = commonConf(o);
    conf.putAll(v.conf);
    for (Map.Entry<String, String> e : conf.entrySet()) {
      cmd.add("--conf");
      cmd.add(e.getKey() + "=" + e.getValue());
    }
    for (Map.Entry<String, String> e : o.source.entrySet()) {
      cmd.add("--source");
      cmd.add(e.getKey() + "=" + e.getValue());
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
      } else if ((a.equals("--add-opens") || a.equals("--add-exports")) && i + 1 < args.size()) {
        flags.add(a + "=" + args.get(++i));
      }
    }
    return flags;
  }

  private static void runOne(Options o, RunRecord r, List<String> cmd, Path dir)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path log = dir.resolve("run.log");
    Files.write(log, (String.join(" ", cmd) + "\n\n").getBytes(StandardCharsets.UTF_8));
    r.set("started_utc", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    r.set("load1_start", loadAverage().split(" ")[0]);
    Process proc = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    boolean done = proc.waitFor(o.runTimeoutSeconds, TimeUnit.SECONDS);
    if (!done) {
      proc.destroyForcibly().waitFor();
    }
    r.set("load1_end", loadAverage().split(" ")[0]);
    Path result = dir.resolve("result.properties");
    if (done && proc.exitValue() == 0 && Files.exists(result)) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(result)) {
        p.load(in);
      }
      r.measured(p).set("status", "ok");
    } else {
      r.set("status", done ? "exit-" + proc.exitValue() : "timeout");
    }
    deleteTree(dir.resolve("checkpoints"));
    deleteTree(dir.resolve("tmp"));
  }

  private static boolean printFalconLines(Path log, int max) throws IOException {
    if (!Files.exists(log)) {
      return false;
    }
    Set<String> lines = new LinkedHashSet<>();
    for (String l : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      int i = l.indexOf("[FALCON]");
      if (i >= 0) {
        lines.add(l);
      }
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

  private static void writeRunsCsv(Path file, List<RunRecord> runs) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
      w.write(RunRecord.csvHeader());
      w.write('\n');
      for (RunRecord r : runs) {
        w.write(r.csvLine());
        w.write('\n');
      }
    }
  }

  /** Reads a runs CSV written by the harness. */
  public static List<RunRecord> readRunsCsv(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty() || !lines.get(0).equals(RunRecord.csvHeader())) {
      throw new IOException(file + " does not start with the runs CSV header");
    }
    List<RunRecord> runs = new ArrayList<>();
    for (String l : lines.subList(1, lines.size())) {
      if (!l.isEmpty()) {
        runs.add(RunRecord.parseCsv(l));
      }
    }
    return runs;
  }

  private static String markdown(Options o, List<Variant> variants, BenchmarkReport report,
      Instant started, String load0, String load1) {
    StringBuilder b = new StringBuilder();
    b.append("<!-- written by io.falconstate.nexmark.bench.NexmarkBenchmark; do not edit -->\n");
    b.append("### ").append(o.title).append(" results, ").append(started).append("\n\n");
    b.append("- Machine: ").append(machine()).append("\n");
    b.append(String.format(Locale.ROOT,
        "- Load average (1, 5, 15 min): %s at the start, %s at the end%n", load0, load1));
    b.append(String.format(Locale.ROOT,
        "- Workload: %,d events per run, first %.0f%% warm-up (not measured), blackhole sink,"
            + " %d repetition(s), backends interleaved, one fresh JVM per run%n",
        o.events, o.warmup * 100, o.reps));
    b.append(String.format(Locale.ROOT,
        "- Every run: JVM -Xms%s -Xmx%s G1, one TaskManager with p slots,"
            + " checkpoints every %d ms; Flink configuration:",
        o.heap, o.heap, o.checkpointIntervalMillis));
    for (Map.Entry<String, String> e : commonConf(o).entrySet()) {
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

  static String machine() {
    String cpu = "unknown CPU";
    try {
      for (String l : Files.readAllLines(Paths.get("/proc/cpuinfo"))) {
        if (l.startsWith("model name")) {
          cpu = l.substring(l.indexOf(':') + 1).trim();
          break;
        }
      }
    } catch (IOException e) {
      // not Linux
    }
    long memMb = -1;
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      memMb = ((com.sun.management.OperatingSystemMXBean) os).getTotalPhysicalMemorySize() >> 20;
    }
    return String.format(Locale.ROOT, "%d cores (%s), %,d MiB RAM, %s %s, Java %s (%s)",
        Runtime.getRuntime().availableProcessors(), cpu, memMb, System.getProperty("os.name"),
        System.getProperty("os.arch"), System.getProperty("java.version"),
        System.getProperty("java.vm.name"));
  }

  static String loadAverage() {
    try {
      String[] f = new String(Files.readAllBytes(Paths.get("/proc/loadavg")),
          StandardCharsets.US_ASCII).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "n/a";
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      s.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
    }
  }

  private static String labels(List<Variant> v) {
    List<String> l = new ArrayList<>();
    for (Variant x : v) {
      l.add(x.label);
    }
    return l.toString();
  }

  private static List<String> onOff(List<Boolean> v) {
    List<String> l = new ArrayList<>();
    for (boolean b : v) {
      l.add(b ? "on" : "off");
    }
    return l;
  }

  static String usage() {
    return String.join("\n",
        "usage: NexmarkBenchmark [options]",
        "  --queries q4,q17,...        queries (default q4,q17,q15_bidder,q20,q3,q5)",
        "  --events N                  events per run (default 10000000)",
        "  --reps N                    repetitions, interleaved (default 3)",
        "  --backends a,b,...          rocksdb, falcon, hashmap, or label=<state.backend value>",
        "                              (default rocksdb,falcon,hashmap)",
        "  --minibatch off,on          mini-batch settings (default off,on)",
        "  --parallelism 1,2           parallelisms (default 1,2)",
        "  --sweep label:k=v[,k=v]     an extra Falcon variant falcon@label with these Flink",
        "                              configuration entries (repeatable; ';' separates several)",
        "  --cache-sweep 1mb,8mb,...   shorthand: a variant falcon@cache-<size> per size, setting",
        "                              --cache-size-key (default " + DEFAULT_CACHE_SIZE_KEY + ")",
        "  --falcon-conf k=v           configuration for every Falcon variant (repeatable)",
        "  --conf k=v                  configuration for every run (repeatable)",
        "  --source k=v                'nexmark' connector option for every run (repeatable)",
        "  --checkpoint-interval-ms N  (default 10000; incremental for rocksdb and Falcon)",
        "  --warmup F                  warm-up share of the events, not measured (default 0.2)",
        "  --heap SIZE                 -Xms/-Xmx of every run's JVM (default 2g)",
        "  --managed-memory SIZE       taskmanager.memory.managed.size (default 512m)",
        "  --native-library PATH       libfalcon_jni.so (default: -Dfalcon.native.library)",
        "  --out DIR                   CSV and markdown output (default docs/benchmarks)",
        "  --work DIR                  per-run directories and logs (default build/nexmark-bench)",
        "  --classpath CP              classpath of the runs (default: this JVM's)",
        "  --java PATH                 java executable of the runs (default: this JVM's)",
        "  --jvm-opt OPT               extra JVM option for every run (repeatable)",
        "  --run-timeout-s N           kill a run after N seconds (default 3600)",
        "  --falcon-lines N            print the [FALCON] lines of the first Falcon run (default 0)",
        "  --title TEXT                heading of the markdown snippet",
        "  --command TEXT              the command line to quote in the markdown snippet",
        "  --dry-run                   print the run commands only");
  }

  private static List<String> csv(String v) {
    List<String> l = new ArrayList<>();
    for (String s : v.split(",")) {
      if (!s.trim().isEmpty()) {
        l.add(s.trim());
      }
    }
    return l;
  }

  private static void put(Map<String, String> m, String kv) {
    int eq = kv.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException("not key=value: " + kv);
    }
    m.put(kv.substring(0, eq), kv.substring(eq + 1));
  }

  public static Options parse(String[] args) {
    Options o = new Options();
    for (int i = 0; i < args.length; i++) {
      String k = args[i];
      if (k.equals("--dry-run")) {
        o.dryRun = true;
        continue;
      }
      if (k.equals("--help") || k.equals("-h")) {
        System.out.println(usage());
        System.exit(0);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("missing value for " + k + "\n" + usage());
      }
      String v = args[++i];
      switch (k) {
        case "--queries":
          o.queries = csv(v);
          break;
        case "--events":
          o.events = Long.parseLong(v.replace("_", ""));
          break;
        case "--reps":
          o.reps = Integer.parseInt(v);
          break;
        case "--backends":
          o.backends = csv(v);
          break;
        case "--minibatch":
          List<Boolean> mb = new ArrayList<>();
          for (String s : csv(v)) {
            if (!s.equals("on") && !s.equals("off")) {
              throw new IllegalArgumentException("--minibatch takes on/off: " + v);
            }
            mb.add(s.equals("on"));
          }
          o.miniBatch = mb;
          break;
        case "--parallelism":
          List<Integer> ps = new ArrayList<>();
          for (String s : csv(v)) {
            ps.add(Integer.parseInt(s));
          }
          o.parallelism = ps;
          break;
        case "--sweep":
          for (String s : v.split(";")) {
            if (!s.trim().isEmpty()) {
              o.sweeps.add(s.trim());
            }
          }
          break;
        case "--cache-sweep":
          for (String size : csv(v)) {
            o.cacheSweep.add(size);
          }
          break;
        case "--cache-size-key":
          o.cacheSizeKey = v;
          break;
        case "--falcon-conf":
          put(o.falconConf, v);
          break;
        case "--conf":
          put(o.conf, v);
          break;
        case "--source":
          put(o.source, v);
          break;
        case "--checkpoint-interval-ms":
          o.checkpointIntervalMillis = Long.parseLong(v);
          break;
        case "--warmup":
          o.warmup = Double.parseDouble(v);
          break;
        case "--heap":
          o.heap = v;
          break;
        case "--managed-memory":
          o.managedMemory = v;
          break;
        case "--native-library":
          o.nativeLibrary = v;
          break;
        case "--out":
          o.out = Paths.get(v);
          break;
        case "--work":
          o.work = Paths.get(v);
          break;
        case "--classpath":
          o.classpath = v;
          break;
        case "--java":
          o.java = v;
          break;
        case "--jvm-opt":
          o.jvmOpts.add(v);
          break;
        case "--run-timeout-s":
          o.runTimeoutSeconds = Long.parseLong(v);
          break;
        case "--falcon-lines":
          o.falconLines = Integer.parseInt(v);
          break;
        case "--title":
          o.title = v;
          break;
        case "--command":
          o.command = v;
          break;
        default:
          throw new IllegalArgumentException("unknown option " + k + "\n" + usage());
      }
    }
    return o;
  }

  public static void main(String[] args) throws Exception {
    Outcome r = run(parse(args));
    long failed = r.runs.stream().filter(x -> !x.ok()).count();
    System.exit(failed == 0 ? 0 : 1);
  }
}
