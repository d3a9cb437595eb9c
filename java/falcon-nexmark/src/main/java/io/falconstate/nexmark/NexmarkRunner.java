package io.falconstate.nexmark;

import io.falconstate.nexmark.sink.ChangelogLines;
import io.falconstate.nexmark.sink.ChangelogMaterializer;
import io.falconstate.nexmark.sink.MaterializedTable;
import io.falconstate.nexmark.sink.SequenceStamper;
import io.falconstate.nexmark.source.SourceProgress;
import io.falconstate.nexmark.table.NexmarkSchema;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.runtime.executiongraph.ArchivedExecutionGraph;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs one Nexmark query on an in-process MiniCluster configured only through a Flink {@link
 * Configuration} (so {@code state.backend} can name any StateBackendFactory), sends its changelog
 * to an exactly-once file sink and materializes the committed result (docs/nexmark.md).
 *
 * <p>Java API: {@link #run(NexmarkRunOptions)}. Command line: {@link #main(String[])}, e.g. {@code
 * java -cp ... io.falconstate.nexmark.NexmarkRunner --query q4 --events 1000000 --state-backend
 * rocksdb}.
 */
public final class NexmarkRunner {
    private static final Logger LOG = LoggerFactory.getLogger(NexmarkRunner.class);

    /** The table the SQL views read from. */
    public static final String SOURCE_TABLE = "datagen";

    private NexmarkRunner() {}

    /** The Flink configuration a run uses (cluster, job and table settings in one). */
    public static Configuration configuration(NexmarkRunOptions o) {
        Path out = o.outputDir();
        Configuration conf = new Configuration();
        conf.setString("state.backend", o.stateBackend());
        conf.setString("state.checkpoints.dir", out.resolve("checkpoints").toUri().toString());
        conf.setString("io.tmp.dirs", out.resolve("tmp").toAbsolutePath().toString());
        conf.setString("parallelism.default", Integer.toString(o.parallelism()));
        conf.setString("taskmanager.numberOfTaskSlots", Integer.toString(o.parallelism()));
        if (o.checkpointIntervalMillis() > 0) {
            conf.setString(
                    "execution.checkpointing.interval", o.checkpointIntervalMillis() + " ms");
            conf.setString("execution.checkpointing.mode", "EXACTLY_ONCE");
        }
        // The file sink commits its last files in the checkpoint taken after the tasks finished.
        conf.setString(
                "execution.checkpointing.checkpoints-after-tasks-finish.enabled",
                Boolean.toString(o.sink() == NexmarkRunOptions.Sink.FILE));
        if (o.restartAttempts() > 0) {
            conf.setString("restart-strategy", "fixed-delay");
            conf.setString(
                    "restart-strategy.fixed-delay.attempts", Integer.toString(o.restartAttempts()));
            conf.setString("restart-strategy.fixed-delay.delay", "100 ms");
        } else {
            conf.setString("restart-strategy", "none");
        }
        conf.setString(
                FalconPhaseReporter.CONFIG_PREFIX + "factory.class",
                FalconPhaseReporter.Factory.class.getName());
        // Read every few seconds, so the cache's per-state counters are current at the end.
        conf.setString(FalconPhaseReporter.CONFIG_PREFIX + "interval", "5 s");
        conf.setString("table.exec.mini-batch.enabled", Boolean.toString(o.miniBatch()));
        if (o.miniBatch()) {
            conf.setString(
                    "table.exec.mini-batch.allow-latency", o.miniBatchLatency().toMillis() + " ms");
            conf.setString("table.exec.mini-batch.size", Long.toString(o.miniBatchSize()));
        }
        for (Map.Entry<String, String> e : o.configuration().entrySet()) {
            conf.setString(e.getKey(), e.getValue());
        }
        return conf;
    }

    /** The 'nexmark' connector options a run uses. */
    public static Map<String, String> sourceOptions(NexmarkRunOptions o) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("events.num", Long.toString(o.events()));
        s.put("seed", Long.toString(o.seed()));
        s.put("event-time.rate", Long.toString(o.eventTimeRate()));
        s.put("rate.limit", Long.toString(o.rateLimit()));
        s.put("out-of-order.group-size", Integer.toString(o.outOfOrderGroupSize()));
        s.putAll(o.sourceOptions());
        return s;
    }

    /** Runs the query to completion and returns the measurements and the materialized result. */
    public static NexmarkRunResult run(NexmarkRunOptions o) throws Exception {
        prepare(o);
        Path resultDir = o.outputDir().resolve("result");
        Configuration conf = configuration(o);
        List<String> statements = NexmarkQueries.statements(NexmarkQueries.text(o.query()));
        LOG.info("Nexmark run: {}", o);
        try (MiniCluster cluster = startCluster(conf, o.parallelism())) {
            return runOn(cluster, o, conf, statements, resultDir);
        }
    }

    private static void prepare(NexmarkRunOptions o) throws Exception {
        if (o.query() == null) {
            throw new IllegalArgumentException("no query given");
        }
        if (o.outputDir() == null) {
            o.outputDir(Files.createTempDirectory("nexmark-" + o.query()));
        }
        boolean file = o.sink() == NexmarkRunOptions.Sink.FILE;
        if (file && o.checkpointIntervalMillis() <= 0) {
            throw new IllegalArgumentException(
                    "the exactly-once file sink commits on checkpoints: set a checkpoint interval");
        }
        Path resultDir = o.outputDir().resolve("result");
        if (file && !ChangelogMaterializer.committedFiles(resultDir).isEmpty()) {
            throw new IllegalArgumentException(resultDir + " already holds results");
        }
        Files.createDirectories(o.outputDir().resolve("tmp"));
    }

    /**
     * Runs on an already started MiniCluster with at least {@code o.parallelism()} free slots, e.g.
     * one shared by many runs (tests, benchmark sweeps). Everything job-level (state backend,
     * checkpointing, restarts, table options) still comes from {@link
     * #configuration(NexmarkRunOptions)}; cluster settings come from the cluster's own
     * configuration.
     */
    public static NexmarkRunResult run(NexmarkRunOptions o, MiniCluster cluster) throws Exception {
        prepare(o);
        Path resultDir = o.outputDir().resolve("result");
        List<String> statements = NexmarkQueries.statements(NexmarkQueries.text(o.query()));
        LOG.info("Nexmark run on a shared cluster: {}", o);
        return runOn(cluster, o, configuration(o), statements, resultDir);
    }

    /**
     * Starts a one-TaskManager MiniCluster with {@code slots} slots on {@code conf}. Unless {@code
     * conf} sets a REST port, the cluster's REST endpoint binds an ephemeral port, so runs do not
     * collide with each other or with a Flink cluster on 8081.
     */
    public static MiniCluster startCluster(Configuration conf, int slots) throws Exception {
        Configuration c = new Configuration(conf);
        if (!c.containsKey("rest.bind-port") && !c.containsKey("rest.port")) {
            c.setString("rest.bind-port", "0");
        }
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(c)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(slots)
                                .build());
        try {
            cluster.start();
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private static NexmarkRunResult runOn(
            MiniCluster cluster,
            NexmarkRunOptions o,
            Configuration conf,
            List<String> statements,
            Path resultDir)
            throws Exception {
        boolean file = o.sink() == NexmarkRunOptions.Sink.FILE;
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(
                        env,
                        EnvironmentSettings.newInstance()
                                .inStreamingMode()
                                .withConfiguration(conf)
                                .build());
        addPipeline(tEnv, o, statements, resultDir);
        StreamGraph streamGraph = env.getStreamGraph();
        streamGraph.setJobName("nexmark-" + o.query());
        JobGraph jobGraph = streamGraph.getJobGraph();
        String backendClass = jobStateBackend(jobGraph);

        long emitted0 = SourceProgress.emitted();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        WindowSampler sampler =
                new WindowSampler(
                        emitted0,
                        emitted0 + (long) Math.ceil(o.warmupFraction() * o.events()),
                        t0,
                        cpu0,
                        o.progressListener(),
                        o.progressInterval().toMillis());
        if (o.warmupFraction() > 0 || o.progressListener() != null) {
            sampler.start();
        }
        JobResult jobResult;
        FalconPhaseReporter.reset();
        long failuresBefore = SourceProgress.failedAtNanos();
        RecoveryTimeline timeline =
                o.sourceOptions().containsKey("failure.after-events")
                        ? new RecoveryTimeline()
                        : null;
        if (timeline != null) {
            timeline.start();
        }
        try {
            cluster.submitJob(jobGraph).get();
            jobResult = cluster.requestJobResult(jobGraph.getJobID()).get();
        } finally {
            sampler.interrupt();
            if (timeline != null) {
                timeline.interrupt();
            }
        }
        RecoveryTimeline.Recovery recovery = null;
        if (timeline != null) {
            timeline.join();
            long failedAt = SourceProgress.failedAtNanos();
            recovery = failedAt != failuresBefore ? timeline.result(failedAt) : null;
        }
        long t1 = System.nanoTime();
        long cpu1 = processCpuNanos();
        long emitted1 = SourceProgress.emitted();
        sampler.join();
        long elapsed = t1 - t0;
        long cpu = cpu0 < 0 ? -1 : cpu1 - cpu0;
        jobResult.toJobExecutionResult(NexmarkRunner.class.getClassLoader());
        MeasuredWindow window = sampler.window(t1, cpu1, emitted1);
        CheckpointSummary checkpoints = checkpointSummary(cluster, jobGraph);

        MaterializedTable table = file ? ChangelogMaterializer.materialize(resultDir) : null;
        NexmarkRunResult r =
                new NexmarkRunResult(
                        o.query(),
                        o.stateBackend(),
                        backendClass,
                        o.events(),
                        elapsed,
                        cpu,
                        checkpoints,
                        window,
                        table,
                        FalconPhaseReporter.totals(),
                        recovery);
        LOG.info("{}", r.summary());
        for (String line : FalconPhaseReporter.stateCounters()) {
            LOG.info("state counters {}", line);
        }
        return r;
    }

    /**
     * Adds the query's pipeline to {@code tEnv}'s StreamExecutionEnvironment: the 'nexmark' source
     * table, the views, the query's statements, and its changelog into the exactly-once file sink
     * under {@code resultDir} (or a discarding sink). Shared by the in-process runs and the job a
     * real cluster runs ({@link NexmarkClusterJob}); the DataStream operators carry fixed uids so a
     * savepoint maps onto the same operators.
     */
    public static void addPipeline(
            StreamTableEnvironment tEnv,
            NexmarkRunOptions o,
            List<String> statements,
            Path resultDir) {
        tEnv.executeSql(NexmarkSchema.createTable(SOURCE_TABLE, sourceOptions(o)));
        for (String view : NexmarkSchema.createViews(SOURCE_TABLE)) {
            tEnv.executeSql(view);
        }
        for (String ddl : statements.subList(0, statements.size() - 1)) {
            tEnv.executeSql(ddl);
        }
        Table result = tEnv.sqlQuery(statements.get(statements.size() - 1));
        DataStream<Row> changelog = tEnv.toChangelogStream(result);
        if (o.sink() == NexmarkRunOptions.Sink.FILE) {
            FileSink<String> sink = changelogFileSink(resultDir);
            changelog
                    .map(new ToLine())
                    .name("changelog-to-line")
                    .uid("changelog-to-line")
                    .keyBy(new RowContent())
                    .map(new SequenceStamper())
                    .name("sequence")
                    .uid("sequence")
                    .sinkTo(sink)
                    .name("exactly-once-file-sink")
                    .uid("exactly-once-file-sink");
        } else {
            changelog.addSink(new DiscardingSink<>()).name("blackhole").uid("blackhole");
        }
    }

    /**
     * The exactly-once sink of the changelog lines: one part file per subtask and checkpoint in
     * {@code resultDir}, committed with the checkpoint, which {@code ChangelogMaterializer} reads.
     */
    static FileSink<String> changelogFileSink(Path resultDir) {
        return FileSink.forRowFormat(
                        new org.apache.flink.core.fs.Path(resultDir.toUri()),
                        new SimpleStringEncoder<String>("UTF-8"))
                .withBucketAssigner(new BasePathBucketAssigner<>())
                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                .withOutputFileConfig(
                        OutputFileConfig.builder()
                                .withPartPrefix("part")
                                .withPartSuffix(".txt")
                                .build())
                .build();
    }

    /** Class of the state backend the job graph carries (what {@code state.backend} loaded). */
    private static String jobStateBackend(JobGraph jobGraph) throws Exception {
        if (jobGraph.getCheckpointingSettings() == null
                || jobGraph.getCheckpointingSettings().getDefaultStateBackend() == null) {
            return "cluster default";
        }
        return jobGraph.getCheckpointingSettings()
                .getDefaultStateBackend()
                .deserializeValue(NexmarkRunner.class.getClassLoader())
                .getClass()
                .getName();
    }

    private static CheckpointSummary checkpointSummary(MiniCluster cluster, JobGraph jobGraph) {
        try {
            ArchivedExecutionGraph graph =
                    cluster.getArchivedExecutionGraph(jobGraph.getJobID()).get();
            return CheckpointSummary.of(graph.getCheckpointStatsSnapshot());
        } catch (Exception e) {
            LOG.debug("no checkpoint statistics for {}", jobGraph.getJobID(), e);
            return CheckpointSummary.NONE;
        }
    }

    /**
     * Opens the measured window when the source has emitted the warm-up events: polls the
     * in-process source counter every 2 ms (the job's own threads are not touched). With a progress
     * listener it then stays on and hands the listener the window so far at each interval, until
     * the job ends.
     */
    private static final class WindowSampler extends Thread {
        private final long emitted0;
        private final long threshold;
        private final long t0;
        private final long cpu0;
        private final Consumer<MeasuredWindow> listener;
        private final long intervalMillis;
        private volatile boolean observed;
        private volatile long startNanos;
        private volatile long startCpu;
        private volatile long startEmitted;

        WindowSampler(
                long emitted0,
                long threshold,
                long t0,
                long cpu0,
                Consumer<MeasuredWindow> listener,
                long intervalMillis) {
            super("nexmark-window-sampler");
            setDaemon(true);
            this.emitted0 = emitted0;
            this.threshold = threshold;
            this.t0 = t0;
            this.cpu0 = cpu0;
            this.listener = listener;
            this.intervalMillis = intervalMillis;
            if (threshold <= emitted0) {
                // no warm-up: the window is the whole run from submission
                startNanos = t0;
                startCpu = cpu0;
                startEmitted = emitted0;
                observed = true;
            }
        }

        @Override
        public void run() {
            try {
                while (!observed && !isInterrupted()) {
                    long e = SourceProgress.emitted();
                    if (e >= threshold) {
                        startCpu = processCpuNanos();
                        startNanos = System.nanoTime();
                        startEmitted = e;
                        observed = true;
                    } else {
                        Thread.sleep(2);
                    }
                }
                while (listener != null && !isInterrupted()) {
                    Thread.sleep(intervalMillis);
                    listener.accept(
                            window(System.nanoTime(), processCpuNanos(), SourceProgress.emitted()));
                }
            } catch (InterruptedException e) {
                // the job ended
            }
        }

        MeasuredWindow window(long t1, long cpu1, long emitted1) {
            if (!observed) {
                return new MeasuredWindow(
                        emitted1 - emitted0,
                        0,
                        t1 - t0,
                        cpu0 < 0 ? -1 : cpu1 - cpu0,
                        threshold <= emitted0);
            }
            return new MeasuredWindow(
                    emitted1 - startEmitted,
                    startEmitted - emitted0,
                    t1 - startNanos,
                    cpu0 < 0 ? -1 : cpu1 - startCpu,
                    true);
        }
    }

    /** Process CPU time in nanoseconds, or -1 if this JVM does not report it. */
    public static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    /** {@code kind TAB fields}. */
    static final class ToLine implements MapFunction<Row, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(Row row) {
            return ChangelogLines.kind(row.getKind()) + "\t" + ChangelogLines.fields(row);
        }
    }

    /** The fields part of a {@code kind TAB fields} line: all changes of one row share it. */
    static final class RowContent implements KeySelector<String, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(String line) {
            return line.substring(line.indexOf('\t') + 1);
        }
    }

    /** The class that parses and runs {@link #main}'s command line (picocli). */
    static final String COMMAND_LINE_CLASS = "io.falconstate.nexmark.bench.NexmarkRunnerCommand";

    /**
     * Command line (docs/nexmark.md): {@code --query q4 [--events N] [--parallelism P]
     * [--state-backend B] [--mini-batch on|off] ... [--help]}, parsed and run by {@code
     * bench.NexmarkRunnerCommand}. Looked up by name: the cluster job jar
     * (tests/e2e/jobs/nexmark.sh) compiles this class without the bench package and picocli, which
     * are not on a cluster's classpath.
     */
    public static void main(String[] args) throws Throwable {
        try {
            Class.forName(COMMAND_LINE_CLASS)
                    .getMethod("main", String[].class)
                    .invoke(null, (Object) args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
