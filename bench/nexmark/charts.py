#!/usr/bin/env python3
"""Charts of a Nexmark benchmark run (bench/nexmark/run.sh), from nexmark_summary.csv.

  nexmark_throughput.png   median events/s per core (min-max bars) per query and backend,
                           one panel per (mini-batch, parallelism)
  nexmark_ratios.png       per query, Falcon / stock RocksDB and heap / stock RocksDB (median
                           events/s per core), mini-batch off and on side by side
  nexmark_cache_sweep.png  Falcon's speedup over stock RocksDB per cache configuration
                           (the --sweep variants falcon@<label>), one line per query/cell

usage: charts.py DIR [MORE_DIR...]
  reads DIR/nexmark_summary.csv (and those of MORE_DIRs: runs of other cells, e.g. mini-batch on
  for some queries), writes the PNGs to DIR
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def throughput_chart(rows, out):
    cells = ordered((r["minibatch"], r["p"]) for r in rows)
    backends = ordered(r["backend"] for r in rows if "@" not in r["backend"])
    # One panel per (mini-batch, parallelism), two per row; each panel shows only
    # the queries measured in that cell.
    per_cell = {c: ordered(r["query"] for r in rows if (r["minibatch"], r["p"]) == c)
                for c in cells}
    most = max(len(q) for q in per_cell.values())
    ncols = min(2, len(cells))
    nrows = (len(cells) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(max(5, 1.6 * most + 2) * ncols, 4.2 * nrows),
                             squeeze=False)
    for ax in axes.flat[len(cells):]:
        ax.axis("off")
    width = 0.8 / max(1, len(backends))
    for ax, (mb, p) in zip(axes.flat, cells):
        queries = per_cell[(mb, p)]
        for i, b in enumerate(backends):
            xs, ys, lo, hi = [], [], [], []
            for qi, q in enumerate(queries):
                match = [r for r in rows if r["query"] == q and r["minibatch"] == mb
                         and r["p"] == p and r["backend"] == b]
                if not match:
                    continue
                r = match[0]
                med = num(r["events_per_core_s_median"])
                xs.append(qi + (i - (len(backends) - 1) / 2) * width)
                ys.append(med / 1000)
                lo.append(max(0, med - num(r["events_per_core_s_min"])) / 1000)
                hi.append(max(0, num(r["events_per_core_s_max"]) - med) / 1000)
            bars = ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=b)
            ratios = [num(r["ratio_vs_rocksdb"]) for q in queries for r in rows
                      if r["query"] == q and r["minibatch"] == mb and r["p"] == p
                      and r["backend"] == b]
            if b != "rocksdb":
                for bar, ratio in zip(bars, ratios):
                    if ratio == ratio:
                        ax.annotate(f"{ratio:.2f}x", (bar.get_x() + bar.get_width() / 2,
                                                      bar.get_height()),
                                    ha="center", va="bottom", fontsize=7,
                                    xytext=(0, 2), textcoords="offset points")
        ax.set_xticks(range(len(queries)))
        ax.set_xticklabels(queries)
        ax.set_title(f"mini-batch {mb}, parallelism {p}")
        ax.set_ylabel("K events/s per core (median, min-max)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Nexmark throughput per core: stock RocksDB vs Falcon vs heap")
    fig.tight_layout()
    path = os.path.join(out, "nexmark_throughput.png")
    fig.savefig(path, dpi=120)
    print("wrote", path)


def ratio_chart(rows, out):
    """Falcon / stock and heap / stock per query; bars per (backend, mini-batch) at p = 1 (or the
    lowest parallelism measured)."""
    ps = sorted({r["p"] for r in rows}, key=num)
    rows = [r for r in rows if r["p"] == ps[0]]
    queries = ordered(r["query"] for r in rows)
    series = [(b, mb) for b in ("falcon", "hashmap") for mb in ("off", "on")
              if any(r["backend"] == b and r["minibatch"] == mb for r in rows)]
    if not series or not queries:
        print("no falcon or hashmap rows: skipping nexmark_ratios.png")
        return
    colors = {("falcon", "off"): "#1f77b4", ("falcon", "on"): "#6baed6",
              ("hashmap", "off"): "#ff7f0e", ("hashmap", "on"): "#fdae6b"}
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(8, 0.75 * len(queries) + 2), 4.8))
    for i, (b, mb) in enumerate(series):
        xs, ys = [], []
        for qi, q in enumerate(queries):
            match = [r for r in rows if r["query"] == q and r["backend"] == b
                     and r["minibatch"] == mb]
            if match and num(match[0]["ratio_vs_rocksdb"]) == num(match[0]["ratio_vs_rocksdb"]):
                xs.append(qi + (i - (len(series) - 1) / 2) * width)
                ys.append(num(match[0]["ratio_vs_rocksdb"]))
        label = ("Falcon" if b == "falcon" else "heap") + f" / stock, mini-batch {mb}"
        ax.bar(xs, ys, width, label=label, color=colors.get((b, mb)))
    ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(queries)))
    ax.set_xticklabels(queries, rotation=45, ha="right")
    ax.set_ylabel("events/s per core / stock RocksDB (median)")
    ax.set_title(f"Nexmark suite, p = {ps[0]}: Falcon and the heap backend against stock RocksDB")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "nexmark_ratios.png")
    fig.savefig(path, dpi=120)
    print("wrote", path)


def sweep_chart(rows, out):
    sweep = [r for r in rows if r["backend"].startswith("falcon@")]
    if not sweep:
        print("no --sweep variants in the summary: skipping nexmark_cache_sweep.png")
        return
    labels = ["default"] + ordered(r["backend"][len("falcon@"):] for r in sweep)
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(labels)), 4.5))
    for q, mb, p in ordered((r["query"], r["minibatch"], r["p"]) for r in sweep):
        ys = []
        for label in labels:
            name = "falcon" if label == "default" else "falcon@" + label
            match = [r for r in rows if r["query"] == q and r["minibatch"] == mb and r["p"] == p
                     and r["backend"] == name]
            ys.append(num(match[0]["ratio_vs_rocksdb"]) if match else float("nan"))
        ax.plot(range(len(labels)), ys, marker="o", label=f"{q}, mini-batch {mb}, p={p}")
    ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=20)
    ax.set_xlabel("Falcon cache configuration (--sweep label)")
    ax.set_ylabel("per-core throughput / stock RocksDB")
    ax.set_title("Falcon speedup vs cache configuration")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "nexmark_cache_sweep.png")
    fig.savefig(path, dpi=120)
    print("wrote", path)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    rows = []
    for d in sys.argv[1:]:
        rows += load(os.path.join(d, "nexmark_summary.csv"))
    if not rows:
        sys.exit("empty summary")
    throughput_chart(rows, out)
    ratio_chart(rows, out)
    sweep_chart(rows, out)


if __name__ == "__main__":
    main()
