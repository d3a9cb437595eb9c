package io.falconstate.nexmark.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Aggregates the runs of a benchmark: per (query, mini-batch, parallelism, backend) the median and
 * min–max of the figures over the repetitions, and each backend's ratio to the stock RocksDB
 * baseline of the same cell (median over median). Renders the text table, the side-by-side table,
 * the {@code RESULT} lines, the summary CSV and a markdown snippet.
 */
public final class BenchmarkReport {
    /** The backend label every ratio is relative to. */
    public static final String BASELINE = "rocksdb";

    /** Columns of {@code nexmark_summary.csv}. */
    public static final List<String> SUMMARY_COLUMNS =
            Arrays.asList(
                    "query",
                    "minibatch",
                    "p",
                    "backend",
                    "config",
                    "runs",
                    "failed",
                    "events_per_core_s_median",
                    "events_per_core_s_min",
                    "events_per_core_s_max",
                    "events_per_s_median",
                    "events_per_s_min",
                    "events_per_s_max",
                    "cores_median",
                    "ratio_vs_rocksdb",
                    "ckpt_sync_ms_median",
                    "ckpt_sync_max_ms",
                    "ckpt_total_ms_median",
                    "state_size_bytes_median",
                    "checkpoints_median",
                    "ckpt_sync_p50_ms_median");

    /** One aggregated cell and backend. */
    public static final class Summary {
        public final String query;
        public final String minibatch;
        public final int p;
        public final String backend;
        public final String config;
        final List<RunRecord> ok = new ArrayList<>();

        /** Runs that did not finish: failed, or stopped at the time limit. */
        int failed;

        /**
         * Of {@link #failed}, those stopped at the time limit with a window ({@link #stoppedRuns}).
         */
        int stopped;

        double ratio = Double.NaN;

        Summary(RunRecord r) {
            query = r.get("query");
            minibatch = r.get("minibatch");
            p = Integer.parseInt(r.get("p"));
            backend = r.get("backend");
            config = r.get("config");
        }

        public int runs() {
            return ok.size();
        }

        public double median(String column) {
            return stat(column, 0.5);
        }

        public double min(String column) {
            return stat(column, 0);
        }

        public double max(String column) {
            return stat(column, 1);
        }

        private double stat(String column, double q) {
            double[] v =
                    ok.stream()
                            .mapToDouble(r -> r.number(column))
                            .filter(d -> !Double.isNaN(d))
                            .sorted()
                            .toArray();
            if (v.length == 0) {
                return Double.NaN;
            }
            if (q == 0) {
                return v[0];
            }
            if (q == 1) {
                return v[v.length - 1];
            }
            return v.length % 2 == 1
                    ? v[v.length / 2]
                    : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        }

        /** Per-core throughput median over the baseline's median in the same cell; NaN if none. */
        public double ratio() {
            return ratio;
        }

        String cell() {
            return query + "\t" + minibatch + "\t" + p;
        }
    }

    private final List<Summary> summaries = new ArrayList<>();
    private final List<RunRecord> stopped = new ArrayList<>();

    public BenchmarkReport(List<RunRecord> runs) {
        Map<String, Summary> byKey = new LinkedHashMap<>();
        for (RunRecord r : runs) {
            boolean stoppedWithWindow =
                    "timeout".equals(r.get("status")) && !r.get("window_events").isEmpty();
            if (stoppedWithWindow) {
                stopped.add(r);
            }
            String key =
                    r.get("query")
                            + "\t"
                            + r.get("minibatch")
                            + "\t"
                            + r.get("p")
                            + "\t"
                            + r.get("backend");
            Summary s = byKey.computeIfAbsent(key, k -> new Summary(r));
            if (r.ok()) {
                s.ok.add(r);
            } else {
                s.failed++;
                s.stopped += stoppedWithWindow ? 1 : 0;
            }
        }
        summaries.addAll(byKey.values());
        for (Summary s : summaries) {
            Summary base = find(s.cell(), BASELINE);
            if (base != null) {
                s.ratio = s.median("events_per_core_s") / base.median("events_per_core_s");
            }
        }
    }

    private Summary find(String cell, String backend) {
        for (Summary s : summaries) {
            if (s.cell().equals(cell) && s.backend.equals(backend)) {
                return s;
            }
        }
        return null;
    }

    public List<Summary> summaries() {
        return summaries;
    }

    /**
     * {@code RESULT <query> minibatch=<on|off> p=<n> backend=<name> events_per_core_s=<x>
     * ratio_vs_rocksdb=<r>}, one per cell and backend (medians).
     */
    public List<String> resultLines() {
        List<String> lines = new ArrayList<>();
        for (Summary s : summaries) {
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "RESULT %s minibatch=%s p=%d backend=%s events_per_core_s=%.1f ratio_vs_rocksdb=%s",
                            s.query,
                            s.minibatch,
                            s.p,
                            s.backend,
                            s.median("events_per_core_s"),
                            ratio(s.ratio)));
        }
        return lines;
    }

    /** The full table: one row per cell and backend, median (min–max) over the repetitions. */
    public String table() {
        return render(fullRows(false), false, 4);
    }

    /** The full table's header and rows; for markdown with en dashes and backends as code. */
    private List<String[]> fullRows(boolean markdown) {
        String sep = markdown ? ", " : ": ";
        String span = markdown ? "median (min–max)" : "median (min-max)";
        List<String[]> rows = new ArrayList<>();
        rows.add(
                new String[] {
                    "query",
                    "mini-batch",
                    "p",
                    "backend",
                    "runs",
                    "events/s per core" + sep + span,
                    "ratio vs rocksdb",
                    "events/s" + sep + span,
                    "cores",
                    "ckpt sync ms",
                    "ckpt sync p50 ms",
                    "ckpt sync max ms",
                    "ckpt total ms",
                    "Falcon sync: write-back / memtable / RocksDB ms, MiB ahead",
                    "state size"
                });
        for (Summary s : summaries) {
            rows.add(
                    new String[] {
                        s.query,
                        s.minibatch,
                        Integer.toString(s.p),
                        markdown ? "`" + s.backend + "`" : s.backend,
                        s.runs() + notFinished(s),
                        markdown
                                ? range(s, "events_per_core_s").replace('-', '–')
                                : range(s, "events_per_core_s"),
                        Double.isNaN(s.ratio) ? "-" : ratio(s.ratio),
                        markdown
                                ? range(s, "events_per_s").replace('-', '–')
                                : range(s, "events_per_s"),
                        num(s.median("cores"), "%.2f"),
                        num(s.median("ckpt_sync_ms"), "%.0f"),
                        num(s.median("ckpt_sync_p50_ms"), "%.0f"),
                        num(s.max("ckpt_sync_max_ms"), "%.0f"),
                        num(s.median("ckpt_total_ms"), "%.0f"),
                        phases(s),
                        bytes(s.median("state_size_bytes"))
                    });
        }
        return rows;
    }

    /** Medians of Falcon's timed sync phases and of the MiB written back ahead; "-" if none. */
    private static String phases(Summary s) {
        double writeBack = s.median("falcon_writeback_ms");
        if (Double.isNaN(writeBack)) {
            return "-";
        }
        return String.format(
                Locale.ROOT,
                "%.0f / %.0f / %.0f, %.1f",
                writeBack,
                s.median("falcon_memtable_flush_ms"),
                s.median("falcon_rocksdb_sync_ms"),
                s.median("falcon_prebarrier_mib"));
    }

    /** One row per cell, one column per backend (median events/s per core) and the ratios. */
    public String sideBySide() {
        return render(sideBySideRows(), false, 3);
    }

    private List<String[]> sideBySideRows() {
        List<String> backends = new ArrayList<>();
        List<String> cells = new ArrayList<>();
        for (Summary s : summaries) {
            if (!backends.contains(s.backend)) {
                backends.add(s.backend);
            }
            if (!cells.contains(s.cell())) {
                cells.add(s.cell());
            }
        }
        // Ratios only where stock ran: a run of Falcon variants alone has nothing to divide by.
        boolean hasBaseline = backends.contains(BASELINE);
        List<String> header = new ArrayList<>(Arrays.asList("query", "mini-batch", "p"));
        for (String b : backends) {
            header.add(b + " (events/s per core)");
        }
        for (String b : backends) {
            if (hasBaseline && !b.equals(BASELINE)) {
                header.add(b + " / rocksdb");
            }
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(header.toArray(new String[0]));
        for (String cell : cells) {
            List<String> row = new ArrayList<>(Arrays.asList(cell.split("\t")));
            for (String b : backends) {
                Summary s = find(cell, b);
                row.add(s == null ? "-" : num(s.median("events_per_core_s"), "%,.0f"));
            }
            for (String b : backends) {
                if (hasBaseline && !b.equals(BASELINE)) {
                    Summary s = find(cell, b);
                    row.add(s == null || Double.isNaN(s.ratio) ? "-" : ratio(s.ratio) + "x");
                }
            }
            rows.add(row.toArray(new String[0]));
        }
        return rows;
    }

    /** The full table and the side-by-side table as markdown, then {@link #stoppedRuns}. */
    public String markdown() {
        String md = render(fullRows(true), true, 4) + "\n" + render(sideBySideRows(), true, 3);
        if (!stopped.isEmpty()) {
            md += "\nStopped at the time limit (not in the medians; their window until then):\n\n";
            md += render(stoppedRows(), true, 4);
        }
        List<String[]> recovery = RecoveryReport.rows(summaries);
        if (recovery.size() > 1) {
            md +=
                    "\nRecovery after the injected failure (restart, restore, cold cache; the rate"
                            + " of one second, medians over the runs):\n\n";
            md += render(recovery, true, 4);
        }
        return md;
    }

    /**
     * The runs stopped at the time limit whose measured window had opened, with their window as far
     * as it got (the last progress sample): how far they came and their rate until then. Not in the
     * medians or ratios, which are over complete runs only; empty if there are none.
     */
    public String stoppedRuns() {
        return stopped.isEmpty() ? "" : render(stoppedRows(), false, 4);
    }

    private List<String[]> stoppedRows() {
        List<String[]> rows = new ArrayList<>();
        rows.add(
                new String[] {
                    "query",
                    "mini-batch",
                    "backend",
                    "rep",
                    "events emitted",
                    "window s",
                    "events/s per core",
                    "events/s",
                    "cores"
                });
        for (RunRecord r : stopped) {
            rows.add(
                    new String[] {
                        r.get("query"),
                        r.get("minibatch"),
                        r.get("backend"),
                        r.get("rep"),
                        num(r.number("warmup_events") + r.number("window_events"), "%,.0f"),
                        num(r.number("window_s"), "%,.0f"),
                        num(r.number("events_per_core_s"), "%,.0f"),
                        num(r.number("events_per_s"), "%,.0f"),
                        num(r.number("cores"), "%.2f")
                    });
        }
        return rows;
    }

    public String summaryCsv() {
        StringBuilder b = new StringBuilder(String.join(",", SUMMARY_COLUMNS)).append('\n');
        for (Summary s : summaries) {
            List<String> v =
                    Arrays.asList(
                            s.query,
                            s.minibatch,
                            Integer.toString(s.p),
                            s.backend,
                            s.config,
                            Integer.toString(s.runs()),
                            Integer.toString(s.failed),
                            raw(s.median("events_per_core_s")),
                            raw(s.min("events_per_core_s")),
                            raw(s.max("events_per_core_s")),
                            raw(s.median("events_per_s")),
                            raw(s.min("events_per_s")),
                            raw(s.max("events_per_s")),
                            raw(s.median("cores")),
                            raw(s.ratio),
                            raw(s.median("ckpt_sync_ms")),
                            raw(s.max("ckpt_sync_max_ms")),
                            raw(s.median("ckpt_total_ms")),
                            raw(s.median("state_size_bytes")),
                            raw(s.median("checkpoints")),
                            raw(s.median("ckpt_sync_p50_ms")));
            StringBuilder line = new StringBuilder();
            for (String x : v) {
                if (line.length() > 0) {
                    line.append(',');
                }
                line.append(RunRecord.csvEscape(x));
            }
            b.append(line).append('\n');
        }
        return b.toString();
    }

    /** " (+N failed, +M stopped)", the parts that are not zero; empty if every run finished. */
    private static String notFinished(Summary s) {
        List<String> parts = new ArrayList<>();
        if (s.failed > s.stopped) {
            parts.add("+" + (s.failed - s.stopped) + " failed");
        }
        if (s.stopped > 0) {
            parts.add("+" + s.stopped + " stopped");
        }
        return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
    }

    private static String range(Summary s, String column) {
        return num(s.median(column), "%,.0f")
                + " ("
                + num(s.min(column), "%,.0f")
                + "-"
                + num(s.max(column), "%,.0f")
                + ")";
    }

    private static String ratio(double r) {
        return Double.isNaN(r) ? "nan" : String.format(Locale.ROOT, "%.2f", r);
    }

    private static String raw(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String num(double v, String format) {
        return Double.isNaN(v) || v < 0 ? "-" : String.format(Locale.ROOT, format, v);
    }

    private static String bytes(double v) {
        if (Double.isNaN(v) || v < 0) {
            return "-";
        }
        if (v >= 1 << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", v / (1 << 20));
        }
        return String.format(Locale.ROOT, "%.0f KiB", v / 1024);
    }

    private static String render(List<String[]> rows, boolean markdown, int rightFrom) {
        int cols = rows.get(0).length;
        int[] w = new int[cols];
        for (String[] r : rows) {
            for (int i = 0; i < cols; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (int ri = 0; ri < rows.size(); ri++) {
            String[] r = rows.get(ri);
            StringBuilder line = new StringBuilder(markdown ? "| " : "");
            for (int i = 0; i < cols; i++) {
                String cell = r[i];
                boolean right = ri > 0 && i >= rightFrom;
                String pad = repeat(' ', w[i] - cell.length());
                line.append(right ? pad + cell : cell + pad);
                line.append(markdown ? " | " : "  ");
            }
            b.append(line.toString().replaceAll("\\s+$", "")).append('\n');
            if (ri == 0) {
                StringBuilder sep = new StringBuilder(markdown ? "|" : "");
                for (int i = 0; i < cols; i++) {
                    sep.append(markdown ? repeat('-', w[i] + 2) + "|" : repeat('-', w[i]) + "  ");
                }
                b.append(sep.toString().replaceAll("\\s+$", "")).append('\n');
            }
        }
        return b.toString();
    }

    private static String repeat(char c, int n) {
        char[] a = new char[Math.max(0, n)];
        Arrays.fill(a, c);
        return new String(a);
    }
}
