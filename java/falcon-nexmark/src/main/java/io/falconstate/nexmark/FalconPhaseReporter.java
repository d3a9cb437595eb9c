/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.nexmark;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.metrics.reporter.Scheduled;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Collects the Falcon backends' checkpoint-phase totals ({@code falcon.cache.timedCheckpoints},
 * {@code checkpoint*UsTotal}, {@code preBarrierBytesTotal}) of the MiniCluster in this JVM, so a
 * run can report where its synchronous checkpoint phase went. A gauge is kept after its task ends:
 * its last value is the run's total. One run at a time per JVM ({@link #reset} before each).
 */
public final class FalconPhaseReporter implements MetricReporter, Scheduled {

    /** The configuration key prefix that installs this reporter on a cluster. */
    public static final String CONFIG_PREFIX = "metrics.reporter.falcon-phases.";

    static final String[] NAMES = {
        "timedCheckpoints",
        "checkpointWriteBackUsTotal",
        "checkpointMemtableFlushUsTotal",
        "checkpointRocksDbSyncUsTotal",
        "preBarrierBytesTotal"
    };

    /** The per-state cache counters a run logs at its end, with the timer set's. */
    static final String[] STATE_NAMES = {
        "hits",
        "misses",
        "neverWrittenReads",
        "evictions",
        "dirtyWriteBacks",
        "bypassed",
        "mapLoads",
        "mapsOverCap",
        "skippedRegistrations",
        "heldTimers",
        "writtenBack"
    };

    private static final Map<String, List<Gauge<?>>> GAUGES = new ConcurrentHashMap<>();

    /** "operator/state" (or "operator/timers") -> counter name -> gauge, in arrival order. */
    private static final Map<String, Map<String, Gauge<?>>> STATE_GAUGES =
            new ConcurrentHashMap<>();

    /** Forgets the gauges of earlier runs. */
    public static void reset() {
        GAUGES.clear();
        STATE_GAUGES.clear();
    }

    /**
     * One line per cached state and per timer set of this JVM's runs since {@link #reset}: its
     * counters' last values, for the run log (where a query's state work goes).
     */
    public static List<String> stateCounters() {
        List<String> lines = new ArrayList<>();
        new TreeMap<>(STATE_GAUGES)
                .forEach(
                        (state, gauges) -> {
                            StringBuilder line = new StringBuilder(state);
                            gauges.forEach(
                                    (name, g) ->
                                            line.append(' ')
                                                    .append(name)
                                                    .append('=')
                                                    .append(g.getValue()));
                            lines.add(line.toString());
                        });
        return lines;
    }

    /** The sums over every Falcon backend of this JVM's runs since {@link #reset}. */
    public static FalconPhases totals() {
        long[] sums = new long[NAMES.length];
        int backends = 0;
        for (int i = 0; i < NAMES.length; i++) {
            List<Gauge<?>> gauges = GAUGES.get(NAMES[i]);
            if (gauges == null) {
                continue;
            }
            if (i == 0) {
                backends = gauges.size();
            }
            for (Gauge<?> g : gauges) {
                Object v = g.getValue();
                if (v instanceof Number) {
                    sums[i] += ((Number) v).longValue();
                }
            }
        }
        return new FalconPhases(backends, sums[0], sums[1], sums[2], sums[3], sums[4]);
    }

    @Override
    public void open(MetricConfig config) {}

    /**
     * Reads the per-state counters: a cache publishes its statistics only after a gauge asked for
     * them, so without these reads the values logged at the end would be the first ones.
     */
    @Override
    public void report() {
        STATE_GAUGES.values().forEach(gauges -> gauges.values().forEach(Gauge::getValue));
    }

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        if (!(metric instanceof Gauge)) {
            return;
        }
        String[] scope = group.getScopeComponents();
        collectStateCounter((Gauge<?>) metric, metricName, scope);
        if (scope.length < 2
                || !scope[scope.length - 1].equals("cache")
                || !scope[scope.length - 2].equals("falcon")) {
            return;
        }
        for (String name : NAMES) {
            if (name.equals(metricName)) {
                GAUGES.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>())
                        .add((Gauge<?>) metric);
            }
        }
    }

    private static void collectStateCounter(Gauge<?> gauge, String name, String[] scope) {
        if (!Arrays.asList(STATE_NAMES).contains(name) || scope.length < 5) {
            return;
        }
        int n = scope.length;
        String key;
        if (scope[n - 1].equals("timers") && scope[n - 2].equals("falcon")) {
            key = scope[n - 4] + "/timers";
        } else if (scope[n - 2].equals("cache") && scope[n - 3].equals("falcon")) {
            key = scope[n - 5] + "/" + scope[n - 1];
        } else {
            return;
        }
        STATE_GAUGES.computeIfAbsent(key, k -> new ConcurrentSkipListMap<>()).put(name, gauge);
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // Kept: the last value of a finished task's gauge is its total.
    }

    /** Creates the reporter (found through META-INF/services). */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new FalconPhaseReporter();
        }
    }
}
