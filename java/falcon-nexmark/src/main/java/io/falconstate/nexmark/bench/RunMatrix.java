package io.falconstate.nexmark.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The plan of a harness invocation: the backend variants and every run in the order it runs. The
 * repetition is the outermost loop, then query, mini-batch, parallelism, and the backend innermost,
 * so backends interleave and a drift of the machine over a long matrix hits every backend alike.
 * Each repetition starts one backend later (A B C, B C A, C A B): on a machine that slows down or
 * speeds up within minutes, the backend that always ran second would otherwise carry the drift of
 * every pair, which on a query that costs every backend the same is the whole difference.
 */
final class RunMatrix {
    /** One planned run. */
    static final class Run {
        /** 1-based position in the plan. */
        final int n;

        final int rep;
        final String query;
        final boolean miniBatch;
        final int parallelism;
        final Variant variant;

        Run(int n, int rep, String query, boolean miniBatch, int parallelism, Variant variant) {
            this.n = n;
            this.rep = rep;
            this.query = query;
            this.miniBatch = miniBatch;
            this.parallelism = parallelism;
            this.variant = variant;
        }

        /** {@code on} or {@code off}, as the CSV and the run id spell it. */
        String miniBatchName() {
            return miniBatch ? "on" : "off";
        }

        /** The run's directory name, e.g. {@code 007-q4-mbon-p2-falcon-r1}. */
        String id() {
            return String.format(
                    Locale.ROOT,
                    "%03d-%s-mb%s-p%d-%s-r%d",
                    n,
                    query,
                    miniBatchName(),
                    parallelism,
                    variant.label.replaceAll("[^A-Za-z0-9._-]", "_"),
                    rep);
        }

        /** The run's CSV row with what ran filled in (the launch fills in what it measured). */
        RunRecord record(long events) {
            return new RunRecord()
                    .set("run", id())
                    .set("rep", rep)
                    .set("query", query)
                    .set("minibatch", miniBatchName())
                    .set("p", parallelism)
                    .set("backend", variant.label)
                    .set("state_backend", variant.stateBackend)
                    .set("config", variant.confString())
                    .set("events", events);
        }
    }

    final List<Variant> variants;
    final List<Run> runs;

    private RunMatrix(List<Variant> variants, List<Run> runs) {
        this.variants = Collections.unmodifiableList(variants);
        this.runs = Collections.unmodifiableList(runs);
    }

    static RunMatrix of(BenchmarkOptions o) {
        List<Variant> variants = variants(o);
        List<Run> runs = new ArrayList<>();
        for (int rep = 1; rep <= o.reps; rep++) {
            for (String query : o.queries) {
                for (boolean mb : o.miniBatch) {
                    for (int p : o.parallelism) {
                        for (int i = 0; i < variants.size(); i++) {
                            Variant v = variants.get((rep - 1 + i) % variants.size());
                            runs.add(new Run(runs.size() + 1, rep, query, mb, p, v));
                        }
                    }
                }
            }
        }
        return new RunMatrix(variants, runs);
    }

    /** The backends, then the cache-sweep variants, then the sweep variants, labels unique. */
    static List<Variant> variants(BenchmarkOptions o) {
        List<Variant> v = new ArrayList<>();
        for (String b : o.backends) {
            Variant x;
            switch (b) {
                case "rocksdb":
                case "hashmap":
                    x = new Variant(b, b);
                    break;
                case "falcon":
                    x = falconVariant("falcon", o);
                    break;
                default:
                    int eq = b.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException(
                                "backend must be rocksdb, hashmap, falcon or label=<state.backend>: "
                                        + b);
                    }
                    x = new Variant(b.substring(0, eq), b.substring(eq + 1));
            }
            v.add(x);
        }
        List<String> sweeps = new ArrayList<>();
        for (String size : o.cacheSweep) {
            sweeps.add("cache-" + size + ":" + o.cacheSizeKey + "=" + size);
        }
        sweeps.addAll(o.sweeps);
        for (String s : sweeps) {
            int colon = s.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException(
                        "sweep must be label:key=value[,key=value...]: " + s);
            }
            Variant x = falconVariant("falcon@" + s.substring(0, colon), o);
            for (String kv : s.substring(colon + 1).split(",")) {
                if (!kv.trim().isEmpty()) {
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("not key=value: " + kv + " in " + s);
                    }
                    x.conf.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
                }
            }
            v.add(x);
        }
        Set<String> labels = new LinkedHashSet<>();
        for (Variant x : v) {
            if (!labels.add(x.label)) {
                throw new IllegalArgumentException("duplicate backend label " + x.label);
            }
        }
        return v;
    }

    private static Variant falconVariant(String label, BenchmarkOptions o) {
        Variant x = new Variant(label, Variant.FALCON_FACTORY);
        x.conf.put("state.backend.falcon.native.required", "true");
        x.conf.putAll(o.falconConf);
        return x;
    }

    /** The Flink configuration every run shares (memory, checkpointing), before per-run entries. */
    static Map<String, String> commonConf(BenchmarkOptions o) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("taskmanager.memory.managed.size", o.managedMemory);
        c.put("state.backend.incremental", "true");
        c.put("state.backend.local-recovery", "false");
        c.putAll(o.conf);
        return c;
    }

    /** The variant labels, in order. */
    List<String> labels() {
        List<String> l = new ArrayList<>();
        for (Variant x : variants) {
            l.add(x.label);
        }
        return l;
    }
}
