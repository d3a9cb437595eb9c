package io.falconstate.nexmark.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

/** The harness's command line (NexmarkBenchmark): defaults, every option, errors, --help. */
class BenchmarkOptionsTest {
    @TempDir Path tmp;

    /** Every field of the options (the Java API's state), by name. */
    private static Map<String, Object> fields(BenchmarkOptions o) throws Exception {
        Map<String, Object> v = new TreeMap<>();
        for (Field f : BenchmarkOptions.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && !f.getName().equals("mixee")) {
                f.setAccessible(true);
                v.put(f.getName(), f.get(o));
            }
        }
        return v;
    }

    /** The visible option names of the harness's command line. */
    private static List<String> optionNames() {
        List<String> names = new ArrayList<>();
        for (OptionSpec o : Cli.commandLine(new NexmarkBenchmark()).getCommandSpec().options()) {
            if (!o.hidden() && !o.usageHelp()) {
                names.add(o.longestName());
            }
        }
        return names;
    }

    /** Runs the command line as {@code main} does, without exiting: exit code, stdout, stderr. */
    private static String[] execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Cli.commandLine(new NexmarkBenchmark());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void noArgumentsGiveTheJavaApiDefaults() throws Exception {
        BenchmarkOptions o = NexmarkBenchmark.parse();
        assertThat(fields(o)).isEqualTo(fields(new BenchmarkOptions()));
        assertThat(o.queries).isEqualTo(io.falconstate.nexmark.NexmarkQueries.ALL);
        assertThat(o.events).isEqualTo(10_000_000L);
        assertThat(o.reps).isEqualTo(3);
        assertThat(o.backends).containsExactly("rocksdb", "falcon", "hashmap");
        assertThat(o.miniBatch).containsExactly(false, true);
        assertThat(o.parallelism).containsExactly(1);
        assertThat(o.sweeps).isEmpty();
        assertThat(o.cacheSweep).isEmpty();
        assertThat(o.cacheSizeKey).isEqualTo("state.backend.falcon.cache.size-per-subtask");
        assertThat(o.falconConf).isEmpty();
        assertThat(o.conf).isEmpty();
        assertThat(o.source).isEmpty();
        assertThat(o.checkpointIntervalMillis).isEqualTo(10_000L);
        assertThat(o.warmup).isEqualTo(0.2);
        assertThat(o.heap).isEqualTo("2g");
        assertThat(o.managedMemory).isEqualTo("512m");
        assertThat(o.nativeLibrary).isEqualTo(System.getProperty("falcon.native.library", ""));
        assertThat(o.out).isEqualTo(Paths.get("docs/benchmarks"));
        assertThat(o.work).isEqualTo(Paths.get("build/nexmark-bench"));
        assertThat(o.classpath).isEqualTo(BenchmarkOptions.defaultClasspath());
        assertThat(o.java).endsWith("java");
        assertThat(o.jvmOpts).isEmpty();
        assertThat(o.runTimeoutSeconds).isEqualTo(3600);
        assertThat(o.falconLines).isZero();
        assertThat(o.title).isEqualTo("Nexmark");
        assertThat(o.command).isEmpty();
        assertThat(o.dryRun).isFalse();
    }

    @Test
    void everyOptionSetsItsSetting() {
        String[] args = {
            "--queries",
            "q4, q5",
            "--events",
            "1_000",
            "--reps",
            "2",
            "--backends",
            "rocksdb,mine=com.example.Factory",
            "--mini-batch",
            "ON,false",
            "--parallelism",
            "2,1",
            "--sweep",
            "a:k=1;b:k=2",
            "--sweep",
            "c:k=3",
            "--cache-sweep",
            "1mb",
            "--cache-sweep",
            "8mb,16mb",
            "--cache-size-key",
            "x.size",
            "--falcon-conf",
            "f=1",
            "--conf",
            "a=b=c",
            "--conf",
            "d=",
            "--source",
            "rate.limit=5",
            "--checkpoint-interval-ms",
            "0",
            "--fail-after-events",
            "7_000",
            "--warmup",
            "0.5",
            "--heap",
            "1g",
            "--managed-memory",
            "64m",
            "--native-library",
            "/lib/x.so",
            "--output",
            "/o",
            "--work",
            "/w",
            "--classpath",
            "CP",
            "--java",
            "J",
            "--jvm-opt",
            "-XX:+UseG1GC",
            "--jvm-opt",
            "-Dx=y",
            "--run-timeout-s",
            "9",
            "--falcon-lines",
            "3",
            "--title",
            "T",
            "--command",
            "C --x",
            "--dry-run"
        };
        BenchmarkOptions o = NexmarkBenchmark.parse(args);
        assertThat(o.queries).containsExactly("q4", "q5");
        assertThat(o.events).isEqualTo(1000);
        assertThat(o.reps).isEqualTo(2);
        assertThat(o.backends).containsExactly("rocksdb", "mine=com.example.Factory");
        assertThat(o.miniBatch).containsExactly(true, false);
        assertThat(o.parallelism).containsExactly(2, 1);
        assertThat(o.sweeps).containsExactly("a:k=1", "b:k=2", "c:k=3");
        assertThat(o.cacheSweep).containsExactly("1mb", "8mb", "16mb");
        assertThat(o.cacheSizeKey).isEqualTo("x.size");
        assertThat(o.falconConf).containsExactly(entry("f", "1"));
        assertThat(o.conf).containsExactly(entry("a", "b=c"), entry("d", ""));
        assertThat(o.source).containsExactly(entry("rate.limit", "5"));
        assertThat(o.checkpointIntervalMillis).isZero();
        assertThat(o.failAfterEvents).isEqualTo(7000);
        assertThat(o.warmup).isEqualTo(0.5);
        assertThat(o.heap).isEqualTo("1g");
        assertThat(o.managedMemory).isEqualTo("64m");
        assertThat(o.nativeLibrary).isEqualTo("/lib/x.so");
        assertThat(o.out).isEqualTo(Paths.get("/o"));
        assertThat(o.work).isEqualTo(Paths.get("/w"));
        assertThat(o.classpath).isEqualTo("CP");
        assertThat(o.java).isEqualTo("J");
        assertThat(o.jvmOpts).containsExactly("-XX:+UseG1GC", "-Dx=y");
        assertThat(o.runTimeoutSeconds).isEqualTo(9);
        assertThat(o.falconLines).isEqualTo(3);
        assertThat(o.title).isEqualTo("T");
        assertThat(o.command).isEqualTo("C --x");
        assertThat(o.dryRun).isTrue();
        // The arguments above use every option there is.
        assertThat(new TreeSet<>(Arrays.asList(args))).containsAll(optionNames());
    }

    /** bench/nexmark/demo.sh passes its own defaults before the user's options. */
    @Test
    void aRepeatedOptionReplacesTheEarlierOneExceptTheRepeatableOnes() {
        BenchmarkOptions o =
                NexmarkBenchmark.parse(
                        "--queries",
                        "q4",
                        "--backends",
                        "rocksdb,falcon",
                        "--mini-batch",
                        "off",
                        "--parallelism",
                        "1",
                        "--events",
                        "2000000",
                        "--events",
                        "500000",
                        "--backends",
                        "rocksdb,falcon,hashmap",
                        "--mini-batch",
                        "on",
                        "--conf",
                        "a=1",
                        "--conf",
                        "b=2",
                        "--conf",
                        "a=3",
                        "--jvm-opt",
                        "-Da",
                        "--jvm-opt",
                        "-Db");
        assertThat(o.events).isEqualTo(500_000);
        assertThat(o.backends).containsExactly("rocksdb", "falcon", "hashmap");
        assertThat(o.miniBatch).containsExactly(true);
        assertThat(o.queries).containsExactly("q4");
        assertThat(o.conf).containsExactly(entry("a", "3"), entry("b", "2"));
        assertThat(o.jvmOpts).containsExactly("-Da", "-Db");
    }

    static Stream<Arguments> invalidArguments() {
        return Stream.of(
                Arguments.of(
                        new String[] {"--mini-batch", "off,maybe"},
                        "Invalid value for option '--mini-batch': 'maybe' is not on, off, true or false"),
                Arguments.of(
                        new String[] {"--events", "1e6"},
                        "Invalid value for option '--events': '1e6' is not a whole number"),
                Arguments.of(
                        new String[] {"--parallelism", "1,two"},
                        "Invalid value for option '--parallelism': 'two' is not a whole number"),
                Arguments.of(
                        new String[] {"--queries", " , "},
                        "Invalid value for option '--queries': ' , ' is an empty list"),
                Arguments.of(
                        new String[] {"--conf", "novalue"},
                        "Invalid value for option '--conf': 'novalue' is not key=value"),
                Arguments.of(new String[] {"--reps", "0"}, "--reps must be > 0: 0"),
                Arguments.of(new String[] {"--parallelism", "2,0"}, "--parallelism must be > 0: 0"),
                Arguments.of(new String[] {"--warmup", "1"}, "--warmup must be in [0, 1): 1.0"),
                Arguments.of(
                        new String[] {"--backends", "rocksdb,foo"},
                        "backend must be rocksdb, hashmap, falcon or label=<state.backend>: foo"),
                Arguments.of(
                        new String[] {"--cache-sweep", "1mb", "--sweep", "cache-1mb:k=v"},
                        "duplicate backend label falcon@cache-1mb"),
                Arguments.of(
                        new String[] {"--sweep", "nolabel"},
                        "sweep must be label:key=value[,key=value...]: nolabel"),
                Arguments.of(
                        new String[] {"--minibatch", "off"},
                        "Unknown options: '--minibatch', 'off'"),
                Arguments.of(
                        new String[] {"--queries"},
                        "Missing required parameter for option '--queries'"));
    }

    @ParameterizedTest
    @MethodSource("invalidArguments")
    void anInvalidArgumentIsRejectedWithItsMessageAndExitCode2(String[] args, String message) {
        assertThatThrownBy(() -> NexmarkBenchmark.parse(args))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining(message);
        // As main runs it (a dry run in tmp should the arguments pass after all).
        List<String> all =
                new ArrayList<>(
                        Arrays.asList(
                                "--dry-run",
                                "--work",
                                tmp.resolve("work").toString(),
                                "--output",
                                tmp.resolve("out").toString()));
        all.addAll(Arrays.asList(args));
        String[] r = execute(all.toArray(new String[0]));
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1]).isEmpty();
        assertThat(r[2])
                .startsWith("NexmarkBenchmark: ")
                .contains(message)
                .endsWith(
                        "Run NexmarkBenchmark --help for the options and their defaults."
                                + System.lineSeparator());
    }

    @Test
    void theOldMiniBatchSpellingIsRejectedWithTheNewOneSuggested() {
        String[] r = execute("--minibatch", "off", "--dry-run");
        assertThat(r[2]).contains("Possible solutions: --mini-batch");
    }

    @Test
    void helpListsEveryOptionWithItsDefault() {
        String[] r = execute("--help");
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[2]).isEmpty();
        String help = r[1];
        assertThat(help).startsWith("Usage: NexmarkBenchmark [OPTIONS]");
        for (String name : optionNames()) {
            assertThat(help).containsPattern("(?m)^ +" + Pattern.quote(name) + "[= \n]");
        }
        assertThat(help)
                .contains(
                        "--dry-run",
                        "-h, --help",
                        "Default: q3,q4,q5,q7,q8,q9,q11", // the rest wraps
                        "Default: 10000000",
                        "Default: 3",
                        "Default: rocksdb,falcon,hashmap",
                        "Default: off,on",
                        "Default: 1",
                        "Default: state.backend.falcon.cache.size-per-subtask",
                        "Default: 10000",
                        "Default: 0.2",
                        "Default: 2g",
                        "Default: 512m",
                        "Default: -Dfalcon.native.library",
                        "Default: docs/benchmarks",
                        "Default: build/nexmark-bench",
                        "Default: this JVM's",
                        "Default: 3600",
                        "Default: 0",
                        "Default: Nexmark",
                        "Exit code: 0 if every run succeeded, 1 if a run failed, 2 for invalid arguments.");
    }
}
