#!/usr/bin/env python3
"""Prints RESULT lines and ratios from JMH's JSON output (-rf json).

    python3 bench/jmh/summarize.py build/jmh/value.json [more.json ...]

One line per benchmark and parameter set:
    RESULT <Class.method> backend=<b> <param>=<v> ... score=<x> unit=<u> error=<e> [alloc_b_per_op=<n>]
then, for every backend other than the baselines, one line per baseline present in the same
cell (same method and other parameters):
    RATIO <Class.method> <param>=<v> ... <backend>/<baseline>=<r>
Throughput ratios are backend/baseline (above 1 = faster); for time modes (ms/op) the ratio is
reported as speedup = baseline time / backend time, so above 1 = faster as well.
Benchmarks that report the aux counters cpuNanos and ops (ValueStateBenchmark) also get
cpu_ns_per_op (the benchmark thread's CPU time per operation) on RESULT lines and, on RATIO
lines, cpu:<backend>/<baseline> = baseline CPU ns/op / backend CPU ns/op (above 1 = cheaper),
which a loaded machine distorts far less than wall-clock throughput.
"""
import json
import sys

BASELINES = ["rocksdb", "rocksdb-bloom", "heap"]


def main(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            rows.extend(json.load(f))
    cells = {}
    for r in rows:
        name = r["benchmark"].rsplit(".", 2)
        name = name[-2] + "." + name[-1]
        params = dict(r.get("params", {}))
        backend = params.pop("backend", "?")
        pm = r["primaryMetric"]
        score, unit = pm["score"], pm["scoreUnit"]
        err = pm.get("scoreError")
        if isinstance(err, str):  # JMH writes "NaN" when there are too few iterations for an error
            err = float(err)
        extra = ""
        raw = sorted(x for fork in pm.get("rawData", []) for x in fork)
        if raw:
            mid = len(raw) // 2
            median = raw[mid] if len(raw) % 2 else (raw[mid - 1] + raw[mid]) / 2
            extra += " median=%.3f min=%.3f max=%.3f" % (median, raw[0], raw[-1])
        sec = r.get("secondaryMetrics", {})
        if "gc.alloc.rate.norm" in sec:
            extra += " alloc_b_per_op=%.1f" % sec["gc.alloc.rate.norm"]["score"]
        cpu = None
        if "cpuNanos" in sec and "ops" in sec and sec["ops"]["score"]:
            cpu = sec["cpuNanos"]["score"] / sec["ops"]["score"]
            extra += " cpu_ns_per_op=%.1f" % cpu
        ptxt = " ".join("%s=%s" % kv for kv in sorted(params.items()))
        err_txt = "nan" if err is None or err != err else "%.3f" % err
        fields = ["RESULT", name, "backend=" + backend] + ([ptxt] if ptxt else [])
        print(" ".join(fields) + " score=%.3f unit=%s error=%s%s" % (score, unit, err_txt, extra))
        key = (name, tuple(sorted(params.items())))
        cells.setdefault(key, {})[backend] = (score, r["mode"], cpu)
    for (name, params), backends in cells.items():
        ptxt = " ".join("%s=%s" % kv for kv in params)
        for b, (score, mode, cpu) in sorted(backends.items()):
            if b in BASELINES and b != "rocksdb-bloom":
                continue
            parts = []
            for base in BASELINES:
                if base == b or base not in backends:
                    continue
                bscore = backends[base][0]
                if mode == "thrpt":
                    ratio = score / bscore if bscore else float("nan")
                else:
                    ratio = bscore / score if score else float("nan")
                parts.append("%s/%s=%.2f" % (b, base, ratio))
                bcpu = backends[base][2]
                if cpu and bcpu:
                    parts.append("cpu:%s/%s=%.2f" % (b, base, bcpu / cpu))
            if parts:
                print(" ".join(["RATIO", name] + ([ptxt] if ptxt else []) + parts))


if __name__ == "__main__":
    main(sys.argv[1:])
