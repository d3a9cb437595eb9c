package io.falconstate.nexmark;

import org.apache.flink.runtime.minicluster.MiniCluster;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Falcon with both column-family tunings on, for the SQL queries whose joins and aggregations keep
 * keyed state: their results must equal the stock backend's, and the TaskManager's own {@code
 * [FALCON]} lines must show that the tuning really reached SQL state (otherwise equal results would
 * prove nothing).
 */
final class NexmarkTuningRuns {
    private NexmarkTuningRuns() {}

    /** Queries checked with tuning on: q3, q20 (joins), q4 (join + two aggregations), q17 (agg). */
    static final List<String> TUNED_QUERIES =
            Collections.unmodifiableList(Arrays.asList("q3", "q4", "q17", "q20"));

    /** Falcon's logger (FalconLog.LOG); the MiniCluster's TaskManager runs in this JVM. */
    static final String FALCON_LOGGER = "io.falconstate.flink.Falcon";

    static final String HASH_MEMTABLE = "use HashLinkList as memTable structure";
    static final String RANGE_FILTER = "use range filter";
    static final String UNTUNED = "left untuned";

    /** Both tunings on, keys as in docs/configuration.md (the cache keeps its defaults). */
    static NexmarkRunOptions withTuning(NexmarkRunOptions o) {
        return o.configuration("state.backend.falcon.tuning.value-state.hash-memtable", "true")
                .configuration("state.backend.falcon.tuning.map-state.range-filter", "true");
    }

    /** A run of Falcon with tuning, with the per-state tuning lines the run logged. */
    static final class TunedRun {
        final NexmarkRunResult result;
        final List<String> tuningLines;

        TunedRun(NexmarkRunResult result, List<String> tuningLines) {
            this.result = result;
            this.tuningLines = tuningLines;
        }

        List<String> linesWith(String marker) {
            return tuningLines.stream()
                    .filter(l -> l.contains(marker))
                    .collect(Collectors.toList());
        }
    }

    /**
     * Runs {@code query} on Falcon with both tunings on the shared cluster, capturing the per-state
     * tuning lines Falcon logs while the job's keyed backends register their states. The test
     * classes run their jobs one after another, so every line captured belongs to this job.
     */
    static TunedRun run(MiniCluster cluster, String query, Path dir) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        Logger logger = (Logger) LogManager.getLogger(FALCON_LOGGER);
        AbstractAppender appender =
                new AbstractAppender(
                        "tuning-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        String line = event.getMessage().getFormattedMessage();
                        if (line.contains(HASH_MEMTABLE)
                                || line.contains(RANGE_FILTER)
                                || line.contains(UNTUNED)) {
                            lines.add(line);
                        }
                    }
                };
        appender.start();
        logger.addAppender(appender);
        NexmarkRunResult r;
        try {
            r =
                    NexmarkTestRuns.run(
                            cluster,
                            withTuning(
                                    NexmarkTestRuns.options(query, NexmarkTestRuns.FALCON, dir)));
        } finally {
            logger.removeAppender(appender);
            appender.stop();
        }
        assertThat(r.completedCheckpoints())
                .as("completed checkpoints of tuned %s", query)
                .isPositive();
        return new TunedRun(r, lines);
    }

    /**
     * What the planner's states of each query must get. Join inputs without a unique key keep their
     * rows in MapStates keyed by the join key (a BIGINT: fixed length), so joins get the range
     * filter; group aggregations keep one ValueState ({@code accState}) per group key, which gets a
     * HashLinkList memtable when every grouping field is fixed-width (q4's BIGINT keys) and stays
     * untuned with the reason when one is not (q17 groups by a formatted STRING day).
     */
    static void assertTuningApplied(String query, TunedRun run) {
        List<String> lines = run.tuningLines;
        assertThat(lines).as("[FALCON] tuning lines of %s", query).isNotEmpty();
        switch (query) {
            case "q3":
            case "q20":
                assertThat(run.linesWith(RANGE_FILTER))
                        .as("range-filtered join states of %s", query)
                        .isNotEmpty()
                        .allSatisfy(
                                l ->
                                        assertThat(l)
                                                .matches(
                                                        "\\[FALCON] (left|right)-records is map, use range filter \\(prefix \\d+ bytes\\)"));
                break;
            case "q4":
                assertThat(run.linesWith(RANGE_FILTER))
                        .as("range-filtered join states of q4")
                        .isNotEmpty();
                assertThat(run.linesWith(HASH_MEMTABLE))
                        .as("hash-memtable aggregation states of q4")
                        .isNotEmpty()
                        .allSatisfy(
                                l -> assertThat(l).startsWith("[FALCON] accState is valueState"));
                break;
            case "q17":
                assertThat(run.linesWith(HASH_MEMTABLE)).as("q17 groups by a STRING").isEmpty();
                assertThat(run.linesWith(UNTUNED))
                        .as("q17's aggregation state, untuned with a reason")
                        .anySatisfy(
                                l ->
                                        assertThat(l)
                                                .startsWith("[FALCON] accState left untuned: ")
                                                .contains("STRING"));
                break;
            default:
                throw new IllegalArgumentException("no tuning expectation for " + query);
        }
    }
}
