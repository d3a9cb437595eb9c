/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.demo;

import io.falconstate.flink.FalconStateBackendFactory;
import io.falconstate.flink.it.StatefulJobs;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;

import java.util.List;

/**
 * The main job of the quick start ({@code scripts/demo.sh}): the same keyed job (ValueState,
 * MapState, ListState, event-time timers) on a local MiniCluster, once on the stock RocksDB backend
 * and once on Falcon, each configured only by {@code state.backend}. Prints both results and
 * whether they agree; Falcon's {@code [FALCON]} lines appear in between (log4j configuration
 * {@code demo-log4j2.properties}). Exits non-zero when the results differ.
 */
public final class DemoJob {

    private DemoJob() {}

    public static void main(String[] args) throws Exception {
        List<String> stock = run("stock RocksDB", "rocksdb");
        List<String> falcon = run("Falcon", FalconStateBackendFactory.class.getName());
        boolean same = stock.equals(falcon);
        boolean expected = stock.equals(StatefulJobs.expectedKeyedJob());
        System.out.println();
        System.out.println(
                "results: stock RocksDB and Falcon "
                        + (same ? "agree" : "DIFFER")
                        + " ("
                        + stock.size()
                        + " lines each); both "
                        + (expected ? "match" : "DO NOT match")
                        + " the expected result computed without Flink");
        if (!same || !expected) {
            System.exit(1);
        }
    }

    private static List<String> run(String label, String stateBackend) throws Exception {
        Configuration config = new Configuration();
        config.setString(StateBackendOptions.STATE_BACKEND, stateBackend);
        System.out.println();
        System.out.println(
                "== "
                        + label
                        + " (state.backend: "
                        + stateBackend
                        + "): "
                        + StatefulJobs.RECORDS
                        + " records, "
                        + StatefulJobs.KEYS
                        + " keys, ValueState + MapState + ListState + event-time timers");
        // Not a benchmark: each run starts its own MiniCluster (benchmarks live in bench/).
        List<String> result = StatefulJobs.runKeyedJob(config);
        System.out.println(label + " result:");
        for (String line : result) {
            if (line.startsWith("key 0 ") || line.startsWith("key 1 ") || line.startsWith("key 2 ")
                    || line.startsWith("timer 0@")) {
                System.out.println("  " + line);
            }
        }
        System.out.println(
                "  ... "
                        + result.size()
                        + " lines in all ("
                        + result.stream().filter(l -> l.startsWith("timer ")).count()
                        + " fired timers)");
        return result;
    }
}
