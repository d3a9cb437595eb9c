package io.falconstate.nexmark;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Nexmark query as a job for a real cluster: the main class of a job jar run by Flink's CLI
 * ({@code bin/flink run}), e.g. by the end-to-end test (tests/e2e/jobs/nexmark.sh). Unlike {@link
 * NexmarkRunner} it starts no cluster and sets nothing cluster-level: state backend, restart
 * strategy, parallelism and memory come from the cluster's flink-conf.yaml and the CLI's {@code -D}
 * options. It builds the same pipeline as NexmarkRunner (deterministic bounded 'nexmark' source,
 * the query, its changelog into the exactly-once file sink under {@code OUTPUT/result}) and submits
 * it; {@link NexmarkResultCheck} then checks the committed result.
 *
 * <p>Arguments: NexmarkRunner's {@code --query --events --seed --event-time-rate --rate-limit
 * --source key=value --conf key=value --output DIR --checkpoint-interval-ms MS [--parallelism P]},
 * plus {@code --fail-after N}: one source reader of the first attempt throws once after N events
 * and a completed checkpoint (marker file {@code OUTPUT/failure-marker}), so the job restarts from
 * that checkpoint. {@code --rate-limit} (events per second for the whole source) makes a run last
 * long enough to be killed or stopped mid-run.
 */
public final class NexmarkClusterJob {
    private static final Logger LOG = LoggerFactory.getLogger(NexmarkClusterJob.class);

    /** The failure marker under the output directory ({@code --fail-after}). */
    public static final String FAILURE_MARKER = "failure-marker";

    private NexmarkClusterJob() {}

    public static void main(String[] args) throws Exception {
        NexmarkRunOptions o = parse(args);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration conf = new Configuration();
        for (Map.Entry<String, String> e : o.configuration().entrySet()) {
            conf.setString(e.getKey(), e.getValue());
        }
        env.configure(conf);
        env.enableCheckpointing(o.checkpointIntervalMillis(), CheckpointingMode.EXACTLY_ONCE);
        env.getCheckpointConfig().setMinPauseBetweenCheckpoints(o.checkpointIntervalMillis() / 2);
        if (explicitParallelism(args)) {
            env.setParallelism(o.parallelism());
        }
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(
                        env,
                        EnvironmentSettings.newInstance()
                                .inStreamingMode()
                                .withConfiguration(conf)
                                .build());
        Path resultDir = o.outputDir().resolve("result");
        NexmarkRunner.addPipeline(
                tEnv, o, NexmarkQueries.statements(NexmarkQueries.text(o.query())), resultDir);
        LOG.info("submitting Nexmark {} to the cluster: {}", o.query(), o);
        env.execute("nexmark-" + o.query());
    }

    /**
     * The options of a job's arguments ({@code --fail-after} turned into the source's failure
     * injection); {@link NexmarkResultCheck} parses the same arguments to rebuild the generator.
     */
    static NexmarkRunOptions parse(String[] args) {
        List<String> rest = new ArrayList<>();
        long failAfter = -1;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--fail-after") && i + 1 < args.length) {
                failAfter = OptionValues.count(args[++i]);
            } else {
                rest.add(args[i]);
            }
        }
        NexmarkRunOptions o =
                NexmarkJobArgs.parse(rest.toArray(new String[0]), new NexmarkRunOptions());
        if (o.query() == null || o.outputDir() == null) {
            throw new IllegalArgumentException("--query and --output are required");
        }
        if (o.checkpointIntervalMillis() <= 0) {
            throw new IllegalArgumentException(
                    "the exactly-once file sink commits on checkpoints: set --checkpoint-interval-ms");
        }
        if (failAfter >= 0) {
            o.injectFailure(failAfter, o.outputDir().resolve(FAILURE_MARKER));
        }
        return o;
    }

    private static boolean explicitParallelism(String[] args) {
        for (String a : args) {
            if (a.equals("--parallelism") || a.startsWith("--parallelism=")) {
                return true;
            }
        }
        return false;
    }
}
