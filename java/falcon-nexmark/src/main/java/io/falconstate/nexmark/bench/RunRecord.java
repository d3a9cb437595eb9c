package io.falconstate.nexmark.bench;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * One benchmark run: what ran and what it measured, one row of {@code nexmark_runs.csv} ({@link
 * #COLUMNS}). Values are strings as written to the CSV; numbers use '.' decimals.
 */
public final class RunRecord {
    /** CSV columns, in order. */
    public static final List<String> COLUMNS =
            Collections.unmodifiableList(
                    Arrays.asList(
                            "run",
                            "rep",
                            "query",
                            "minibatch",
                            "p",
                            "backend",
                            "state_backend",
                            "config",
                            "events",
                            "status",
                            "started_utc",
                            "load1_start",
                            "load1_end",
                            "backend_class",
                            "elapsed_s",
                            "cpu_s",
                            "warmup_events",
                            "window_events",
                            "window_s",
                            "window_cpu_s",
                            "cores",
                            "events_per_s",
                            "events_per_core_s",
                            "checkpoints",
                            "ckpt_sync_ms",
                            "ckpt_sync_max_ms",
                            "ckpt_total_ms",
                            "ckpt_total_max_ms",
                            "state_size_bytes",
                            "checkpointed_size_bytes",
                            "falcon_writeback_ms",
                            "falcon_memtable_flush_ms",
                            "falcon_rocksdb_sync_ms",
                            "falcon_prebarrier_mib",
                            "recovery_before_eps",
                            "recovery_curve",
                            "ckpt_sync_p50_ms"));

    private final Map<String, String> values = new LinkedHashMap<>();

    public RunRecord() {
        for (String c : COLUMNS) {
            values.put(c, "");
        }
    }

    public RunRecord set(String column, Object value) {
        if (!values.containsKey(column)) {
            throw new IllegalArgumentException("unknown column " + column);
        }
        values.put(column, value == null ? "" : value.toString());
        return this;
    }

    public String get(String column) {
        return values.get(column);
    }

    /** The column as a number; NaN if empty or not a number. */
    public double number(String column) {
        try {
            return Double.parseDouble(values.get(column));
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }

    public boolean ok() {
        return "ok".equals(get("status"));
    }

    /** Fills the measured columns from a {@link NexmarkBenchmarkMain} result file. */
    public RunRecord measured(Properties p) {
        window(p);
        set("backend_class", p.getProperty("backend_class"));
        set("elapsed_s", f3(Double.parseDouble(p.getProperty("elapsed_ns")) / 1e9));
        set("cpu_s", f3(Double.parseDouble(p.getProperty("cpu_ns")) / 1e9));
        set("checkpoints", p.getProperty("checkpoints"));
        set("ckpt_sync_ms", p.getProperty("ckpt_sync_ms"));
        set("ckpt_sync_max_ms", p.getProperty("ckpt_sync_max_ms"));
        set("ckpt_total_ms", p.getProperty("ckpt_total_ms"));
        set("ckpt_total_max_ms", p.getProperty("ckpt_total_max_ms"));
        set("state_size_bytes", p.getProperty("state_size_bytes"));
        set("checkpointed_size_bytes", p.getProperty("checkpointed_size_bytes"));
        for (String phase :
                new String[] {
                    "falcon_writeback_ms",
                    "falcon_memtable_flush_ms",
                    "falcon_rocksdb_sync_ms",
                    "falcon_prebarrier_mib",
                    "recovery_before_eps",
                    "recovery_curve",
                    "ckpt_sync_p50_ms"
                }) {
            set(phase, p.getProperty(phase, ""));
        }
        return this;
    }

    /**
     * Fills the measured window's columns (warm-up, window, cores, throughput) from a result file
     * or from the progress file of a run stopped at its time limit (its window so far).
     */
    public RunRecord window(Properties p) {
        double windowNs = Double.parseDouble(p.getProperty("window_elapsed_ns"));
        double windowCpuNs = Double.parseDouble(p.getProperty("window_cpu_ns"));
        double windowEvents = Double.parseDouble(p.getProperty("window_events"));
        set("warmup_events", p.getProperty("warmup_events"));
        set("window_events", p.getProperty("window_events"));
        set("window_s", f3(windowNs / 1e9));
        set("window_cpu_s", f3(windowCpuNs / 1e9));
        set("cores", f3(windowCpuNs / windowNs));
        set("events_per_s", f1(windowEvents / (windowNs / 1e9)));
        set("events_per_core_s", windowCpuNs > 0 ? f1(windowEvents / (windowCpuNs / 1e9)) : "");
        return this;
    }

    public static String csvHeader() {
        return String.join(",", COLUMNS);
    }

    public String csvLine() {
        StringBuilder b = new StringBuilder();
        for (String c : COLUMNS) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(csvEscape(values.get(c)));
        }
        return b.toString();
    }

    /**
     * Parses a line written by {@link #csvLine()} under {@link #csvHeader()}, or by an older
     * harness with fewer (leading) columns.
     */
    public static RunRecord parseCsv(String line) {
        List<String> fields = splitCsv(line);
        if (fields.size() > COLUMNS.size()) {
            throw new IllegalArgumentException(
                    "expected " + COLUMNS.size() + " fields, got " + fields.size() + ": " + line);
        }
        RunRecord r = new RunRecord();
        for (int i = 0; i < fields.size(); i++) {
            r.set(COLUMNS.get(i), fields.get(i));
        }
        return r;
    }

    static String csvEscape(String v) {
        if (v.indexOf(',') < 0 && v.indexOf('"') < 0 && v.indexOf('\n') < 0) {
            return v;
        }
        return '"' + v.replace("\"", "\"\"") + '"';
    }

    static List<String> splitCsv(String line) {
        List<String> out = new java.util.ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }

    static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String f3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
