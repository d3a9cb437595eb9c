/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.it;

import io.falconstate.flink.FalconStateBackendFactory;
import io.falconstate.flink.FalconTestAccess;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real jobs on a real MiniCluster, configured only through a {@link Configuration} with {@code
 * state.backend} naming the factory, produce the same results on Falcon as on the stock RocksDB
 * backend: a keyed DataStream job (ValueState, MapState, ListState, event-time timers) and a SQL
 * join + GROUP BY job; again with the changelog backend in front, and with heap timers.
 */
class FalconMiniClusterITCase {

    private static List<String> expectedKeyed;
    private static List<String> expectedSql;

    @BeforeAll
    static void expected() {
        expectedKeyed = StatefulJobs.expectedKeyedJob();
        expectedSql = StatefulJobs.expectedSqlJob();
        assertThat(expectedKeyed).hasSize(StatefulJobs.KEYS * 11);
        assertThat(expectedSql).hasSize(5);
    }

    static Configuration config(String backend) {
        Configuration config = new Configuration();
        config.setString(StateBackendOptions.STATE_BACKEND, backend);
        return config;
    }

    static Configuration stock() {
        return config("rocksdb");
    }

    static Configuration falcon() {
        return config(FalconStateBackendFactory.class.getName());
    }

    static Configuration withChangelog(Configuration config) {
        config.setString("state.backend.changelog.enabled", "true");
        config.setString("state.backend.changelog.storage", "memory");
        config.setString("state.backend.changelog.periodic-materialize.interval", "100ms");
        return config;
    }

    static Configuration withHeapTimers(Configuration config) {
        config.setString("state.backend.rocksdb.timer-service.factory", "HEAP");
        return config;
    }

    /** Runs a job under Falcon and checks that Falcon's keyed backend was the one in use. */
    private static <T> T underFalcon(FalconTestAccess.Job<T> job) throws Exception {
        FalconTestAccess.Activation<T> run = FalconTestAccess.runCapturingActivation(job);
        assertThat(run.activationLines())
                .as("the activation line of Falcon's keyed backend")
                .hasSize(1)
                .allMatch(
                        l ->
                                l.startsWith("INFO [FALCON] Falcon ")
                                        && l.contains(" enabled (native "));
        return run.result();
    }

    @Test
    void keyedJob() throws Exception {
        List<String> stock = StatefulJobs.runKeyedJob(stock());
        List<String> falcon = underFalcon(() -> StatefulJobs.runKeyedJob(falcon()));
        assertThat(stock).isEqualTo(expectedKeyed);
        assertThat(falcon).isEqualTo(stock);
    }

    @Test
    void sqlJoinAndGroupBy() throws Exception {
        List<String> stock = StatefulJobs.runSqlJob(stock());
        List<String> falcon = underFalcon(() -> StatefulJobs.runSqlJob(falcon()));
        assertThat(stock).isEqualTo(expectedSql);
        assertThat(falcon).isEqualTo(stock);
    }

    @Test
    void keyedJobWithChangelog() throws Exception {
        List<String> stock = StatefulJobs.runKeyedJob(withChangelog(stock()));
        List<String> falcon = underFalcon(() -> StatefulJobs.runKeyedJob(withChangelog(falcon())));
        assertThat(stock).isEqualTo(expectedKeyed);
        assertThat(falcon).isEqualTo(stock);
    }

    @Test
    void sqlJobWithChangelog() throws Exception {
        List<String> stock = StatefulJobs.runSqlJob(withChangelog(stock()));
        List<String> falcon = underFalcon(() -> StatefulJobs.runSqlJob(withChangelog(falcon())));
        assertThat(stock).isEqualTo(expectedSql);
        assertThat(falcon).isEqualTo(stock);
    }

    @Test
    void keyedJobWithHeapTimers() throws Exception {
        List<String> stock = StatefulJobs.runKeyedJob(withHeapTimers(stock()));
        List<String> falcon = underFalcon(() -> StatefulJobs.runKeyedJob(withHeapTimers(falcon())));
        assertThat(stock).isEqualTo(expectedKeyed);
        assertThat(falcon).isEqualTo(stock);
    }
}
