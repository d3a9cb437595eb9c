package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.NexmarkRunOptions;
import io.falconstate.nexmark.OptionValues;

import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options of one Nexmark run on the command line (a picocli mixin of {@link
 * NexmarkRunnerCommand} and of the benchmark's forked run {@link NexmarkBenchmarkMain}): one option
 * per setting of {@link NexmarkRunOptions}, defaults from it. The cluster job parses the same
 * options without picocli ({@code io.falconstate.nexmark.NexmarkJobArgs}).
 */
public final class RunnerOptions {
    private static final NexmarkRunOptions DEFAULTS = new NexmarkRunOptions();

    @Option(
            names = "--query",
            required = true,
            paramLabel = "NAME",
            order = 1,
            description =
                    "Required. Query: a file under nexmark/queries/ without .sql (q0 to q22,"
                            + " q15_bidder; docs/nexmark.md) or the path of a .sql file.")
    String query;

    @Option(
            names = "--events",
            paramLabel = "N",
            converter = Cli.Count.class,
            order = 2,
            description = "Events the bounded source emits ('_' may group digits).")
    long events = DEFAULTS.events();

    @Option(
            names = "--parallelism",
            paramLabel = "P",
            converter = Cli.IntCount.class,
            order = 3,
            description = "Parallelism of the job and task slots of the MiniCluster.")
    int parallelism = DEFAULTS.parallelism();

    @Option(
            names = "--state-backend",
            paramLabel = "BACKEND",
            order = 4,
            description =
                    "The state.backend value: rocksdb, hashmap or a StateBackendFactory class,"
                            + " e.g. io.falconstate.flink.FalconStateBackendFactory.")
    String stateBackend = DEFAULTS.stateBackend();

    @Option(
            names = "--checkpoint-interval-ms",
            paramLabel = "MS",
            converter = Cli.Count.class,
            order = 5,
            description = "Checkpoint interval (0 = no checkpoints).")
    long checkpointIntervalMillis = DEFAULTS.checkpointIntervalMillis();

    @Option(
            names = "--mini-batch",
            paramLabel = "on|off",
            converter = Cli.OnOff.class,
            arity = "1",
            defaultValue = "off",
            order = 6,
            showDefaultValue = Visibility.ALWAYS,
            description = "Table mini-batch (true|false also accepted).")
    boolean miniBatch = DEFAULTS.miniBatch();

    @Option(
            names = "--output",
            paramLabel = "DIR",
            order = 7,
            description =
                    "Root of the run's files: result/, checkpoints/, tmp/. Default: a new"
                            + " temporary directory.")
    Path output;

    @Option(
            names = "--sink",
            paramLabel = "file|blackhole",
            converter = Cli.SinkName.class,
            order = 8,
            description =
                    "file: the exactly-once file sink, materialized after the job;"
                            + " blackhole: discarded (throughput runs).")
    String sink;

    @Option(
            names = "--seed",
            paramLabel = "S",
            converter = Cli.Count.class,
            order = 9,
            description = "Generator seed.")
    long seed = DEFAULTS.seed();

    @Option(
            names = "--event-time-rate",
            paramLabel = "R",
            converter = Cli.Count.class,
            order = 10,
            description = "Events per second of event time.")
    long eventTimeRate = DEFAULTS.eventTimeRate();

    @Option(
            names = "--rate-limit",
            paramLabel = "R",
            converter = Cli.Count.class,
            order = 11,
            description = "Wall-clock cap, events per second for the whole source (0 = none).")
    long rateLimit = DEFAULTS.rateLimit();

    @Option(
            names = "--restart-attempts",
            paramLabel = "N",
            converter = Cli.IntCount.class,
            order = 12,
            description = "Fixed-delay restarts allowed (0 = fail on the first failure).")
    int restartAttempts = DEFAULTS.restartAttempts();

    @Option(
            names = "--warmup",
            paramLabel = "F",
            order = 13,
            description = "Share of the events (0 to <1) before the measured window opens.")
    double warmup = DEFAULTS.warmupFraction();

    final Map<String, String> source = new LinkedHashMap<>();

    @Option(
            names = "--source",
            paramLabel = "KEY=VALUE",
            order = 14,
            description = "A 'nexmark' connector option (docs/nexmark.md), repeatable.")
    void addSource(String entry) {
        Cli.put(source, Cli.checked(mixee, "--source", () -> OptionValues.keyValue(entry)));
    }

    final Map<String, String> conf = new LinkedHashMap<>();

    @Option(
            names = "--conf",
            paramLabel = "KEY=VALUE",
            order = 15,
            description = "A Flink configuration entry, applied last (repeatable).")
    void addConf(String entry) {
        Cli.put(conf, Cli.checked(mixee, "--conf", () -> OptionValues.keyValue(entry)));
    }

    /** The picocli command this is a mixin of, for the errors of the map options. */
    @Spec(Spec.Target.MIXEE)
    private CommandSpec mixee;

    /** Options whose sink defaults to {@link NexmarkRunOptions}'s (the file sink). */
    public RunnerOptions() {
        this(DEFAULTS.sink());
    }

    RunnerOptions(NexmarkRunOptions.Sink defaultSink) {
        sink = OptionValues.name(defaultSink);
    }

    /**
     * The run these options describe.
     *
     * @throws IllegalArgumentException if a value is out of its range (e.g. parallelism 0)
     */
    public NexmarkRunOptions toRunOptions() {
        NexmarkRunOptions o =
                new NexmarkRunOptions()
                        .query(query)
                        .events(events)
                        .parallelism(parallelism)
                        .stateBackend(stateBackend)
                        .checkpointIntervalMillis(checkpointIntervalMillis)
                        .miniBatch(miniBatch)
                        .sink(OptionValues.sink(sink))
                        .seed(seed)
                        .eventTimeRate(eventTimeRate)
                        .rateLimit(rateLimit)
                        .restartAttempts(restartAttempts)
                        .warmupFraction(warmup);
        if (output != null) {
            o.outputDir(output);
        }
        for (Map.Entry<String, String> e : source.entrySet()) {
            o.sourceOption(e.getKey(), e.getValue());
        }
        for (Map.Entry<String, String> e : conf.entrySet()) {
            o.configuration(e.getKey(), e.getValue());
        }
        return o;
    }
}
