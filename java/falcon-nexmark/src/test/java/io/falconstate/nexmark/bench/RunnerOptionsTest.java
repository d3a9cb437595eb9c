package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.NexmarkRunOptions;
import io.falconstate.nexmark.RunOptionsFields;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

/**
 * NexmarkRunner's command line ({@link NexmarkRunnerCommand}) and the benchmark's forked run
 * ({@link NexmarkBenchmarkMain}), which share {@link RunnerOptions}: defaults, every option,
 * errors, --help.
 */
class RunnerOptionsTest {
    /** The visible option names of a command line. */
    private static List<String> optionNames(Object command) {
        List<String> names = new ArrayList<>();
        for (OptionSpec o : Cli.commandLine(command).getCommandSpec().options()) {
            if (!o.hidden() && !o.usageHelp()) {
                names.add(o.longestName());
            }
        }
        return names;
    }

    /** Runs the command line as {@code main} does, without exiting: exit code, stdout, stderr. */
    private static String[] execute(Object command, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Cli.commandLine(command);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void onlyTheQueryGivesTheJavaApiDefaults() {
        assertThat(RunOptionsFields.of(NexmarkRunnerCommand.parse("--query", "q4")))
                .isEqualTo(RunOptionsFields.of(new NexmarkRunOptions().query("q4")));
    }

    @Test
    void everyOptionSetsItsSetting() {
        String[] args = {
            "--query",
            "q17",
            "--events",
            "2_500",
            "--parallelism",
            "3",
            "--state-backend",
            "hashmap",
            "--checkpoint-interval-ms",
            "250",
            "--mini-batch",
            "on",
            "--output",
            "/tmp/nx",
            "--sink",
            "BlackHole",
            "--seed",
            "7",
            "--event-time-rate",
            "1000",
            "--rate-limit",
            "500",
            "--restart-attempts",
            "2",
            "--warmup",
            "0.25",
            "--source",
            "out-of-order.group-size=50",
            "--source",
            "splits=4",
            "--conf",
            "a=b=c",
            "--conf",
            "d=",
            "--print-rows",
            "5"
        };
        NexmarkRunOptions o = NexmarkRunnerCommand.parse(args);
        assertThat(o.query()).isEqualTo("q17");
        assertThat(o.events()).isEqualTo(2500);
        assertThat(o.parallelism()).isEqualTo(3);
        assertThat(o.stateBackend()).isEqualTo("hashmap");
        assertThat(o.checkpointIntervalMillis()).isEqualTo(250);
        assertThat(o.miniBatch()).isTrue();
        assertThat(o.outputDir()).isEqualTo(Paths.get("/tmp/nx"));
        assertThat(o.sink()).isEqualTo(NexmarkRunOptions.Sink.BLACKHOLE);
        assertThat(o.seed()).isEqualTo(7);
        assertThat(o.eventTimeRate()).isEqualTo(1000);
        assertThat(o.rateLimit()).isEqualTo(500);
        assertThat(o.restartAttempts()).isEqualTo(2);
        assertThat(o.warmupFraction()).isEqualTo(0.25);
        assertThat(o.sourceOptions())
                .containsExactly(entry("out-of-order.group-size", "50"), entry("splits", "4"));
        assertThat(o.configuration()).containsExactly(entry("a", "b=c"), entry("d", ""));
        NexmarkRunnerCommand command = new NexmarkRunnerCommand();
        Cli.commandLine(command).parseArgs(args);
        assertThat(command.printRows).isEqualTo(5);
        assertThat(new TreeSet<>(Arrays.asList(args)))
                .containsAll(optionNames(new NexmarkRunnerCommand()));
    }

    @ParameterizedTest
    @CsvSource({"on,true", "off,false", "true,true", "false,false", "ON,true", "Off,false"})
    void miniBatchTakesOnOffAndTrueFalse(String value, boolean expected) {
        assertThat(NexmarkRunnerCommand.parse("--query", "q4", "--mini-batch", value).miniBatch())
                .isEqualTo(expected);
    }

    static Stream<Arguments> invalidArguments() {
        return Stream.of(
                Arguments.of(
                        new String[] {"--events", "10"}, "Missing required option: '--query=NAME'"),
                Arguments.of(
                        new String[] {"--query", "q4", "--mini-batch", "yes"},
                        "Invalid value for option '--mini-batch': 'yes' is not on, off, true or false"),
                Arguments.of(
                        new String[] {"--query", "q4", "--sink", "kafka"},
                        "Invalid value for option '--sink': 'kafka' is not file or blackhole"),
                Arguments.of(
                        new String[] {"--query", "q4", "--events", "ten"},
                        "Invalid value for option '--events': 'ten' is not a whole number"),
                Arguments.of(
                        new String[] {"--query", "q4", "--source", "=x"},
                        "Invalid value for option '--source': '=x' is not key=value"),
                Arguments.of(
                        new String[] {"--query", "q4", "--parallelism", "0"},
                        "parallelism must be > 0"),
                Arguments.of(
                        new String[] {"--query", "q4", "--warmup", "1.5"},
                        "warm-up fraction must be in [0, 1)"),
                Arguments.of(
                        new String[] {"--query", "q4", "--queries", "q5"},
                        "Unknown options: '--queries', 'q5'"));
    }

    @ParameterizedTest
    @MethodSource("invalidArguments")
    void anInvalidArgumentIsRejectedWithItsMessageAndExitCode2(String[] args, String message) {
        assertThatThrownBy(() -> NexmarkRunnerCommand.parse(args))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining(message);
        String[] r = execute(new NexmarkRunnerCommand(), args);
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1]).isEmpty();
        assertThat(r[2])
                .startsWith("NexmarkRunner: ")
                .contains(message)
                .endsWith(
                        "Run NexmarkRunner --help for the options and their defaults."
                                + System.lineSeparator());
    }

    @Test
    void runnerHelpListsEveryOptionWithItsDefault() {
        String[] r = execute(new NexmarkRunnerCommand(), "--help");
        assertThat(r[0]).isEqualTo("0");
        String help = r[1];
        assertThat(help).startsWith("Usage: NexmarkRunner --query=NAME [OPTIONS]");
        for (String name : optionNames(new NexmarkRunnerCommand())) {
            assertThat(help).containsPattern("(?m)^ +" + Pattern.quote(name) + "=");
        }
        assertThat(help)
                .contains(
                        "-h, --help",
                        "Default: 1000000",
                        "Default: 2",
                        "Default: rocksdb",
                        "Default: 10000",
                        "Default: off",
                        "Default: a new",
                        "Default: file",
                        "Default: 42",
                        "Default: 10000000",
                        "Default: 0",
                        "Default: 0.0",
                        "Default: 20");
    }

    @Test
    void theForkedRunDefaultsToTheBlackholeAndNeedsItsResultFile() {
        NexmarkBenchmarkMain main = new NexmarkBenchmarkMain();
        Cli.commandLine(main).parseArgs("--result-file", "/tmp/r.properties", "--query", "q4");
        assertThat(main.resultFile).isEqualTo(Paths.get("/tmp/r.properties"));
        assertThat(main.run.toRunOptions().sink()).isEqualTo(NexmarkRunOptions.Sink.BLACKHOLE);
        NexmarkBenchmarkMain file = new NexmarkBenchmarkMain();
        Cli.commandLine(file).parseArgs("--result-file", "r", "--query", "q4", "--sink", "file");
        assertThat(file.run.toRunOptions().sink()).isEqualTo(NexmarkRunOptions.Sink.FILE);

        String[] r = execute(new NexmarkBenchmarkMain(), "--query", "q4");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("Missing required option: '--result-file=FILE'");

        String help = execute(new NexmarkBenchmarkMain(), "--help")[1];
        for (String name : optionNames(new NexmarkBenchmarkMain())) {
            assertThat(help).containsPattern("(?m)^ +" + Pattern.quote(name) + "=");
        }
        assertThat(help).contains("Default: blackhole").doesNotContain("--print-rows");
    }
}
