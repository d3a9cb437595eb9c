package io.falconstate.nexmark;

import io.falconstate.nexmark.generator.NexmarkConfig;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;

/** The small workload the integration tests share, and its q4 oracle. */
final class NexmarkTestRuns {
    private NexmarkTestRuns() {}

    static final long EVENTS = 20_000;
    static final long EVENT_TIME_RATE = 1_000;
    static final int OUT_OF_ORDER_GROUP = 50;
    static final long SEED = 42;

    /**
     * Falcon's {@code state.backend} value (its factory; the Falcon jar is a provided dependency).
     */
    static final String FALCON = io.falconstate.flink.FalconStateBackendFactory.class.getName();

    /** Backends every query is checked on: the stock ones and Falcon (compared with rocksdb). */
    static List<String> backends() {
        List<String> b = new ArrayList<>();
        b.add("rocksdb");
        b.add("hashmap");
        b.add(FALCON);
        return b;
    }

    /**
     * Falcon's cache bounded far below the state of the small workload (a few KiB and 16 entries
     * per subtask), so results also cover eviction and write-back. Keys as in
     * docs/configuration.md; a Falcon build without these options ignores them (Flink
     * configuration).
     */
    static NexmarkRunOptions withTinyFalconCache(NexmarkRunOptions o) {
        return o.configuration("state.backend.falcon.cache.enabled", "true")
                .configuration("state.backend.falcon.cache.size-per-subtask", "8kb")
                .configuration("state.backend.falcon.cache.entries-per-subtask", "16");
    }

    /** Expected job state backend class for a {@code state.backend} value. */
    static String backendClass(String backend) {
        switch (backend) {
            case "rocksdb":
                return "org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend";
            case "hashmap":
                return "org.apache.flink.runtime.state.hashmap.HashMapStateBackend";
            case "io.falconstate.flink.FalconStateBackendFactory":
                return "io.falconstate.flink.FalconStateBackend";
            default:
                return null;
        }
    }

    /** One MiniCluster for a test class: starting one per run costs seconds. */
    static MiniCluster startCluster(Path dir) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("io.tmp.dirs", dir.toAbsolutePath().toString());
        return NexmarkRunner.startCluster(conf, 2);
    }

    /** Runs on the shared cluster and checks the job really used the requested backend. */
    static NexmarkRunResult run(MiniCluster cluster, NexmarkRunOptions o) throws Exception {
        NexmarkRunResult r = NexmarkRunner.run(o, cluster);
        String expected = backendClass(o.stateBackend());
        if (expected != null) {
            org.assertj.core.api.Assertions.assertThat(r.stateBackendClass())
                    .as("state backend of the job")
                    .isEqualTo(expected);
        }
        return r;
    }

    static NexmarkRunOptions options(String query, String backend, Path dir) {
        return new NexmarkRunOptions()
                .query(query)
                .events(EVENTS)
                .parallelism(2)
                .stateBackend(backend)
                .checkpointIntervalMillis(200)
                .seed(SEED)
                .eventTimeRate(EVENT_TIME_RATE)
                .outOfOrderGroupSize(OUT_OF_ORDER_GROUP)
                // The small workload runs in about a second: without this, a fast run could end
                // before its first checkpoint, and no test would cover a snapshot of its state.
                .sourceOption("end.after-checkpoints", "1")
                .outputDir(dir);
    }

    static NexmarkConfig config() {
        return new NexmarkConfig()
                .withEventsNum(EVENTS)
                .withSeed(SEED)
                .withEventTimeRate(EVENT_TIME_RATE)
                .withOutOfOrderGroupSize(OUT_OF_ORDER_GROUP);
    }

    /**
     * q4 of the shared workload, computed from the generator (the one oracle, {@link Q4Oracle}).
     */
    static SortedMap<String, Long> q4Oracle() {
        return Q4Oracle.rows(config());
    }
}
