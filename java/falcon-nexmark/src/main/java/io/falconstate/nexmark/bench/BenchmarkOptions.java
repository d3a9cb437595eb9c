package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.OptionValues;

import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The harness's options: its command line (a picocli mixin of {@link NexmarkBenchmark}) and its
 * Java API (the fluent setters). The flags that name a setting of one run are spelled as in {@link
 * RunnerOptions}; the matrix axes take comma-separated lists.
 */
public final class BenchmarkOptions {
    /** The Falcon option {@code --cache-sweep} sets (docs/configuration.md): --cache-size-key. */
    static final String DEFAULT_CACHE_SIZE_KEY = "state.backend.falcon.cache.size-per-subtask";

    // The matrix axes' defaults, as the command line spells them (and --help shows them).
    /** The whole bundled suite, {@code NexmarkQueries.ALL} (a test keeps the two equal). */
    static final String DEFAULT_QUERIES =
            "q3,q4,q5,q7,q8,q9,q11,q12,q15,q15_bidder,q16,q17,q18,q19,q20,q0,q1,q2,q14,q21,q22";

    static final String DEFAULT_BACKENDS = "rocksdb,falcon,hashmap";
    static final String DEFAULT_MINI_BATCH = "off,on";
    static final String DEFAULT_PARALLELISM = "1";

    List<String> queries = items(DEFAULT_QUERIES, ',');

    @Option(
            names = "--queries",
            paramLabel = "QUERY[,QUERY...]",
            defaultValue = DEFAULT_QUERIES,
            order = 1,
            description = "Queries (files under nexmark/queries/ without .sql).")
    void setQueries(String list) {
        queries = Cli.checked(mixee, "--queries", () -> items(list, ','));
    }

    @Option(
            names = "--events",
            paramLabel = "N",
            converter = Cli.Count.class,
            order = 2,
            description = "Events per run ('_' may group digits).")
    long events = 10_000_000L;

    @Option(
            names = "--reps",
            paramLabel = "N",
            converter = Cli.IntCount.class,
            order = 3,
            description = "Repetitions; the outermost loop, so backends interleave.")
    int reps = 3;

    List<String> backends = items(DEFAULT_BACKENDS, ',');

    @Option(
            names = "--backends",
            paramLabel = "BACKEND[,BACKEND...]",
            defaultValue = DEFAULT_BACKENDS,
            order = 4,
            description =
                    "rocksdb, hashmap, falcon (the Falcon factory with"
                            + " state.backend.falcon.native.required: true), or label=<state.backend value>.")
    void setBackends(String list) {
        backends = Cli.checked(mixee, "--backends", () -> items(list, ','));
    }

    List<Boolean> miniBatch = onOffs(DEFAULT_MINI_BATCH);

    @Option(
            names = "--mini-batch",
            paramLabel = "on|off[,on|off]",
            defaultValue = DEFAULT_MINI_BATCH,
            order = 5,
            description = "Mini-batch settings (true,false also accepted).")
    void setMiniBatch(String list) {
        miniBatch = Cli.checked(mixee, "--mini-batch", () -> onOffs(list));
    }

    List<Integer> parallelism = ints(DEFAULT_PARALLELISM);

    @Option(
            names = "--parallelism",
            paramLabel = "P[,P...]",
            defaultValue = DEFAULT_PARALLELISM,
            order = 6,
            description = "Parallelisms.")
    void setParallelism(String list) {
        parallelism = Cli.checked(mixee, "--parallelism", () -> ints(list));
    }

    final List<String> sweeps = new ArrayList<>();

    @Option(
            names = "--sweep",
            paramLabel = "LABEL:K=V[,K=V][;...]",
            order = 7,
            description =
                    "An extra Falcon variant falcon@LABEL with these Flink configuration entries"
                            + " (repeatable; ';' separates several).")
    void addSweeps(String list) {
        sweeps.addAll(Cli.checked(mixee, "--sweep", () -> items(list, ';')));
    }

    final List<String> cacheSweep = new ArrayList<>();

    @Option(
            names = "--cache-sweep",
            paramLabel = "SIZE[,SIZE...]",
            order = 8,
            description =
                    "Shorthand: a variant falcon@cache-SIZE per size (e.g. 1mb,8mb), setting"
                            + " --cache-size-key (repeatable).")
    void addCacheSweep(String list) {
        cacheSweep.addAll(Cli.checked(mixee, "--cache-sweep", () -> items(list, ',')));
    }

    @Option(
            names = "--cache-size-key",
            paramLabel = "KEY",
            order = 9,
            description = "The Falcon option --cache-sweep sets.")
    String cacheSizeKey = DEFAULT_CACHE_SIZE_KEY;

    final Map<String, String> falconConf = new LinkedHashMap<>();

    @Option(
            names = "--falcon-conf",
            paramLabel = "KEY=VALUE",
            order = 10,
            description = "Flink configuration for every Falcon variant (repeatable).")
    void addFalconConf(String entry) {
        Cli.put(
                falconConf,
                Cli.checked(mixee, "--falcon-conf", () -> OptionValues.keyValue(entry)));
    }

    final Map<String, String> conf = new LinkedHashMap<>();

    @Option(
            names = "--conf",
            paramLabel = "KEY=VALUE",
            order = 11,
            description = "Flink configuration for every run (repeatable).")
    void addConf(String entry) {
        Cli.put(conf, Cli.checked(mixee, "--conf", () -> OptionValues.keyValue(entry)));
    }

    final Map<String, String> source = new LinkedHashMap<>();

    @Option(
            names = "--source",
            paramLabel = "KEY=VALUE",
            order = 12,
            description = "A 'nexmark' connector option for every run (repeatable).")
    void addSource(String entry) {
        Cli.put(source, Cli.checked(mixee, "--source", () -> OptionValues.keyValue(entry)));
    }

    @Option(
            names = "--checkpoint-interval-ms",
            paramLabel = "MS",
            converter = Cli.Count.class,
            order = 13,
            description = "Checkpoint interval (incremental for rocksdb and Falcon).")
    long checkpointIntervalMillis = 10_000L;

    @Option(
            names = "--fail-after-events",
            paramLabel = "N",
            converter = Cli.Count.class,
            order = 13,
            description =
                    "Recovery runs: one source reader fails once after N events (and a completed"
                            + " checkpoint); the job restarts from its last checkpoint and the"
                            + " report shows how fast each backend got back to speed (0 = no"
                            + " failure).")
    long failAfterEvents;

    @Option(
            names = "--warmup",
            paramLabel = "F",
            order = 14,
            description = "Warm-up share of the events, not measured (0 to <1).")
    double warmup = 0.2;

    @Option(
            names = "--heap",
            paramLabel = "SIZE",
            order = 15,
            description = "-Xms/-Xmx of every run's JVM.")
    String heap = "2g";

    @Option(
            names = "--managed-memory",
            paramLabel = "SIZE",
            order = 16,
            description = "taskmanager.memory.managed.size of every run.")
    String managedMemory = "512m";

    @Option(
            names = "--native-library",
            paramLabel = "PATH",
            order = 17,
            showDefaultValue = Visibility.NEVER,
            description = "libfalcon_jni.so of the runs. Default: -Dfalcon.native.library.")
    String nativeLibrary = System.getProperty("falcon.native.library", "");

    @Option(
            names = "--output",
            paramLabel = "DIR",
            order = 18,
            description = "Where the CSVs and the markdown snippet go.")
    Path out = Paths.get("docs/benchmarks");

    @Option(
            names = "--work",
            paramLabel = "DIR",
            order = 19,
            description = "Per-run directories and logs.")
    Path work = Paths.get("build/nexmark-bench");

    @Option(
            names = "--classpath",
            paramLabel = "CP",
            order = 20,
            showDefaultValue = Visibility.NEVER,
            description = "Classpath of the runs. Default: this JVM's.")
    String classpath = defaultClasspath();

    @Option(
            names = "--java",
            paramLabel = "PATH",
            order = 21,
            showDefaultValue = Visibility.NEVER,
            description = "java executable of the runs. Default: this JVM's.")
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();

    @Option(
            names = "--jvm-opt",
            paramLabel = "OPT",
            order = 22,
            showDefaultValue = Visibility.NEVER,
            description = "An extra JVM option for every run (repeatable).")
    final List<String> jvmOpts = new ArrayList<>();

    @Option(
            names = "--run-timeout-s",
            paramLabel = "N",
            converter = Cli.Count.class,
            order = 23,
            description =
                    "Kill a run after N seconds. Its row keeps status 'timeout' and its window"
                            + " until then (sampled every 5 s), listed apart from the medians.")
    long runTimeoutSeconds = 3600;

    @Option(
            names = "--falcon-lines",
            paramLabel = "N",
            converter = Cli.IntCount.class,
            order = 24,
            description = "Print the [FALCON] lines of the first Falcon run (0 = none).")
    int falconLines = 0;

    @Option(
            names = "--title",
            paramLabel = "TEXT",
            order = 25,
            description = "Heading of the markdown snippet.")
    String title = "Nexmark";

    @Option(
            names = "--command",
            paramLabel = "TEXT",
            order = 26,
            showDefaultValue = Visibility.NEVER,
            description = "The command line to quote in the markdown snippet.")
    String command = "";

    @Option(
            names = "--dry-run",
            order = 27,
            showDefaultValue = Visibility.NEVER,
            description = "Print the run commands only.")
    boolean dryRun;

    /** The picocli command this is a mixin of, for the errors of the list and map options. */
    @Spec(Spec.Target.MIXEE)
    private CommandSpec mixee;

    /** The non-empty, trimmed items of a list; at least one. */
    private static List<String> items(String list, char separator) {
        List<String> v = new ArrayList<>();
        for (String s : list.split(Pattern.quote(String.valueOf(separator)))) {
            if (!s.trim().isEmpty()) {
                v.add(s.trim());
            }
        }
        if (v.isEmpty()) {
            throw new IllegalArgumentException("'" + list + "' is an empty list");
        }
        return v;
    }

    private static List<Boolean> onOffs(String list) {
        List<Boolean> v = new ArrayList<>();
        for (String s : items(list, ',')) {
            v.add(OptionValues.onOff(s));
        }
        return v;
    }

    private static List<Integer> ints(String list) {
        List<Integer> v = new ArrayList<>();
        for (String s : items(list, ',')) {
            v.add(OptionValues.intCount(s));
        }
        return v;
    }

    /** Surefire's real test classpath when forked from a test, else this JVM's classpath. */
    static String defaultClasspath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isEmpty() ? cp : System.getProperty("java.class.path");
    }

    /**
     * Checks what parsing cannot: ranges, and that the backends and sweeps form a matrix.
     *
     * @throws IllegalArgumentException naming the offending option
     */
    void validate() {
        positive("--events", events);
        positive("--reps", reps);
        positive("--run-timeout-s", runTimeoutSeconds);
        for (int p : parallelism) {
            positive("--parallelism", p);
        }
        if (checkpointIntervalMillis < 0) {
            throw new IllegalArgumentException("--checkpoint-interval-ms must be >= 0");
        }
        if (!(warmup >= 0 && warmup < 1)) {
            throw new IllegalArgumentException("--warmup must be in [0, 1): " + warmup);
        }
        if (falconLines < 0) {
            throw new IllegalArgumentException("--falcon-lines must be >= 0");
        }
        RunMatrix.variants(this);
    }

    private static void positive(String option, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(option + " must be > 0: " + v);
        }
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
}
