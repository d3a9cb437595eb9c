package io.falconstate.nexmark.bench;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The harness's options: its command line ({@link #parse}, {@link #usage}) and its Java API (the
 * fluent setters).
 */
public final class BenchmarkOptions {
  /** The Falcon option {@code --cache-sweep} sets (docs/configuration.md); {@code --cache-size-key}. */
  static final String DEFAULT_CACHE_SIZE_KEY = "state.backend.falcon.cache.size-per-subtask";

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
  String title = "Nexmark";
  String command = "";
  boolean dryRun;

  /** Surefire's real test classpath when forked from a test, else this JVM's classpath. */
  static String defaultClasspath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isEmpty() ? cp : System.getProperty("java.class.path");
  }

  public BenchmarkOptions queries(String... v) {
    queries = Arrays.asList(v);
    return this;
  }

  public BenchmarkOptions events(long v) {
    events = v;
    return this;
  }

  public BenchmarkOptions reps(int v) {
    reps = v;
    return this;
  }

  public BenchmarkOptions backends(String... v) {
    backends = Arrays.asList(v);
    return this;
  }

  public BenchmarkOptions miniBatch(Boolean... v) {
    miniBatch = Arrays.asList(v);
    return this;
  }

  public BenchmarkOptions parallelism(Integer... v) {
    parallelism = Arrays.asList(v);
    return this;
  }

  public BenchmarkOptions sweep(String v) {
    sweeps.add(v);
    return this;
  }

  public BenchmarkOptions conf(String key, String value) {
    conf.put(key, value);
    return this;
  }

  public BenchmarkOptions checkpointIntervalMillis(long v) {
    checkpointIntervalMillis = v;
    return this;
  }

  public BenchmarkOptions out(Path v) {
    out = v;
    return this;
  }

  public BenchmarkOptions work(Path v) {
    work = v;
    return this;
  }

  public BenchmarkOptions heap(String v) {
    heap = v;
    return this;
  }

  public BenchmarkOptions nativeLibrary(String v) {
    nativeLibrary = v;
    return this;
  }

  public BenchmarkOptions classpath(String v) {
    classpath = v;
    return this;
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

  static BenchmarkOptions parse(String[] args) {
    BenchmarkOptions o = new BenchmarkOptions();
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
}
