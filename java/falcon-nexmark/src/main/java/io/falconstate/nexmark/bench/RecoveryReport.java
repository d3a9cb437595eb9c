/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.RecoveryTimeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The recovery table of runs with an injected failure ({@code --fail-after-events}): per cell and
 * backend, the source rate over the 10 s before the failure, and how long after the failure the
 * rate of one second first reached stock's rate before the failure, and 90% of the backend's own
 * (medians over the runs; "never" if a run did not get there within the measured 120 s).
 */
final class RecoveryReport {
    private RecoveryReport() {}

    /** Markdown table rows (header first); only the header if no run has a recovery curve. */
    static List<String[]> rows(List<BenchmarkReport.Summary> summaries) {
        List<String[]> rows = new ArrayList<>();
        rows.add(
                new String[] {
                    "query",
                    "mini-batch",
                    "p",
                    "backend",
                    "events/s before the failure",
                    "s to stock's rate",
                    "s to 90% of its own"
                });
        for (BenchmarkReport.Summary s : summaries) {
            double before = s.median("recovery_before_eps");
            if (Double.isNaN(before)) {
                continue;
            }
            double stockBefore = Double.NaN;
            for (BenchmarkReport.Summary o : summaries) {
                if (o.backend.equals("rocksdb")
                        && o.query.equals(s.query)
                        && o.minibatch.equals(s.minibatch)
                        && o.p == s.p) {
                    stockBefore = o.median("recovery_before_eps");
                }
            }
            rows.add(
                    new String[] {
                        s.query,
                        s.minibatch,
                        Integer.toString(s.p),
                        "`" + s.backend + "`",
                        String.format(Locale.ROOT, "%,.0f", before),
                        Double.isNaN(stockBefore) ? "-" : seconds(s, stockBefore, false),
                        seconds(s, 0.9, true)
                    });
        }
        return rows;
    }

    /** Median over the runs of the seconds to {@code rate} (of its own rate before if relative). */
    private static String seconds(BenchmarkReport.Summary s, double rate, boolean relative) {
        List<Long> millis = new ArrayList<>();
        for (RunRecord r : s.ok) {
            String curve = r.get("recovery_curve");
            double before = r.number("recovery_before_eps");
            if (curve == null || curve.isEmpty() || Double.isNaN(before)) {
                continue;
            }
            long[] buckets =
                    Arrays.stream(curve.trim().split(" ")).mapToLong(Long::parseLong).toArray();
            RecoveryTimeline.Recovery rec = new RecoveryTimeline.Recovery(before, buckets);
            long ms = rec.millisToRate(relative ? rate * before : rate);
            millis.add(ms < 0 ? Long.MAX_VALUE : ms);
        }
        if (millis.isEmpty()) {
            return "-";
        }
        millis.sort(null);
        long median = millis.get((millis.size() - 1) / 2);
        return median == Long.MAX_VALUE
                ? "never"
                : String.format(Locale.ROOT, "%.2f", median / 1000.0);
    }
}
