/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.jmh.lowmem;

import io.falconstate.flink.lowmem.LowMemoryRun;
import io.falconstate.flink.lowmem.LowMemoryRun.Config;
import io.falconstate.flink.lowmem.LowMemoryRun.Result;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The low-memory grid: the same keyed command stream ({@code LowMemoryWorkload}) on the stock
 * RocksDB backend and on Falcon's configurations, for each managed memory per slot and number of
 * states. In each cell the configurations run in turn, {@code --reps} times, each repetition
 * starting with the next configuration, so slow phases of a shared machine fall on all of them.
 * Prints one line per run and, per cell and configuration,
 *
 * <pre>
 * RESULT lowmem managed_mb=4 states=20 config=defaults ratio_vs_rocksdb=1.93 stall_micros=0 flushes=12 ...
 * </pre>
 *
 * <p>{@code ratio_vs_rocksdb} is stock's median wall time over the configuration's (above 1: faster
 * than stock); the counters are medians of the runs. Run through {@code bench/low-memory/run.sh}.
 */
public final class LowMemoryBenchmark {

    private LowMemoryBenchmark() {}

    public static void main(String[] args) throws Exception {
        long[] managedMb = {4, 16, 64, 256, 1024};
        int[] states = {1, 5, 20, 50};
        List<Config> configs = new ArrayList<>(Arrays.asList(Config.values()));
        long operations = 200_000;
        int checkpoints = 4;
        int reps = 3;
        long seed = 42;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--managed-mb":
                    managedMb =
                            Arrays.stream(value.split(",")).mapToLong(Long::parseLong).toArray();
                    break;
                case "--states":
                    states = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
                    break;
                case "--configs":
                    configs.clear();
                    for (String label : value.split(",")) {
                        configs.add(Config.of(label));
                    }
                    if (!configs.contains(Config.ROCKSDB)) {
                        configs.add(0, Config.ROCKSDB);
                    }
                    break;
                case "--ops":
                    operations = Long.parseLong(value);
                    break;
                case "--checkpoints":
                    checkpoints = Integer.parseInt(value);
                    break;
                case "--reps":
                    reps = Integer.parseInt(value);
                    break;
                case "--seed":
                    seed = Long.parseLong(value);
                    break;
                default:
                    throw new IllegalArgumentException(
                            "usage: [--managed-mb 4,16,...] [--states 1,5,...] [--configs"
                                    + " defaults,cache-off,...] [--ops N] [--checkpoints N]"
                                    + " [--reps N] [--seed N]; unknown argument "
                                    + args[i]);
            }
            i++;
        }
        System.out.printf(
                Locale.ROOT,
                "low-memory grid: managed_mb=%s states=%s configs=%s ops=%d checkpoints=%d reps=%d%n",
                Arrays.toString(managedMb),
                Arrays.toString(states),
                configs,
                operations,
                checkpoints,
                reps);
        for (long mb : managedMb) {
            for (int n : states) {
                cell(mb, n, configs, operations, checkpoints, reps, seed);
            }
        }
    }

    private static void cell(
            long managedMb,
            int states,
            List<Config> configs,
            long operations,
            int checkpoints,
            int reps,
            long seed)
            throws Exception {
        Map<Config, List<Result>> results = new EnumMap<>(Config.class);
        for (int rep = 0; rep < reps; rep++) {
            for (int i = 0; i < configs.size(); i++) {
                Config config = configs.get((i + rep) % configs.size());
                Result result =
                        LowMemoryRun.run(
                                config, managedMb << 20, states, operations, checkpoints, seed);
                System.out.printf(
                        Locale.ROOT,
                        "run managed_mb=%d states=%d rep=%d %s checksum=%d%n",
                        managedMb,
                        states,
                        rep,
                        result,
                        result.checksum);
                results.computeIfAbsent(config, c -> new ArrayList<>()).add(result);
            }
        }
        checkSameResults(results);
        double stock = median(results.get(Config.ROCKSDB), r -> r.seconds);
        for (Config config : configs) {
            List<Result> runs = results.get(config);
            double seconds = median(runs, r -> r.seconds);
            System.out.printf(
                    Locale.ROOT,
                    "RESULT lowmem managed_mb=%d states=%d config=%s ratio_vs_rocksdb=%.2f"
                            + " stall_micros=%d flushes=%d seconds=%.3f flushed_mb=%.1f"
                            + " stalls=%s%n",
                    managedMb,
                    states,
                    config.label(),
                    stock / seconds,
                    (long) median(runs, r -> r.stallMicros),
                    (long) median(runs, r -> r.flushes),
                    seconds,
                    median(runs, r -> r.flushedBytes) / (1 << 20),
                    runs.get(runs.size() / 2).stallCauses);
        }
    }

    /** Every backend read the same values: the checksums of all runs of a cell agree. */
    private static void checkSameResults(Map<Config, List<Result>> results) {
        long expected = results.get(Config.ROCKSDB).get(0).checksum;
        for (List<Result> runs : results.values()) {
            for (Result run : runs) {
                if (run.checksum != expected) {
                    throw new IllegalStateException(
                            "checksum "
                                    + run.checksum
                                    + " of "
                                    + run
                                    + " differs from stock's "
                                    + expected);
                }
            }
        }
    }

    private interface Field {
        double of(Result result);
    }

    private static double median(List<Result> runs, Field field) {
        double[] values = new double[runs.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = field.of(runs.get(i));
        }
        Arrays.sort(values);
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }
}
