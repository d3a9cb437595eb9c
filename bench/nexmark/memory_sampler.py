#!/usr/bin/env python3
"""Samples a running Flink job's TaskManager memory and Falcon cache figures (bench/nexmark/memory.sh).

Usage: memory_sampler.py --rest URL --job ID --tm-pid PID --process-size BYTES --out DIR
                         [--metrics-every S] [--timeout S]

Until the job ends: the TaskManager's RSS (/proc/PID/status) once a second, and every S seconds
(default 10) the falcon.cache gauges of every keyed subtask through Flink's REST API: entries,
bytes (what the cache charges for its entries), allocatedBytes (what its allocators hold) and
quotaBytes (its share of the slot budget). Writes rss.csv and cache.csv, then memory_results.md,
and exits 1 when a check fails:
  - every RSS sample < taskmanager.memory.process.size;
  - every cache sample: bytes <= quotaBytes;
  - once a cache is at least half full: allocatedBytes within 10% + 4 MiB of bytes (the charge
    covers the entry blocks, the index slots and the admission sketch; the slack is the arena's
    current chunk and slab).
"""
import argparse
import csv
import json
import os
import sys
import time
import urllib.parse
import urllib.request

GAUGES = ('entries', 'bytes', 'allocatedBytes', 'quotaBytes')
ALLOCATED_TOLERANCE = 0.10
ALLOCATED_SLACK = 4 << 20


def get(rest, path):
    with urllib.request.urlopen(rest + path, timeout=10) as response:
        return json.loads(response.read().decode('utf-8') or 'null')


def rss_bytes(pid):
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cache_metric_ids(rest, job, vertex):
    """'<subtask>.<operator>.falcon.cache.<gauge>' ids of one vertex, grouped by subtask prefix."""
    ids = [m['id'] for m in get(rest, f'/jobs/{job}/vertices/{vertex}/metrics')]
    groups = {}
    for metric_id in ids:
        prefix, sep, gauge = metric_id.rpartition('.falcon.cache.')
        if sep and gauge in GAUGES:
            groups.setdefault(prefix, []).append(metric_id)
    return groups


def sample_caches(rest, job):
    rows = []
    for vertex in get(rest, f'/jobs/{job}')['vertices']:
        for prefix, ids in cache_metric_ids(rest, job, vertex['id']).items():
            query = urllib.parse.quote(','.join(ids), safe=',')
            values = {m['id'].rpartition('.')[2]: int(float(m['value']))
                      for m in get(rest, f'/jobs/{job}/vertices/{vertex["id"]}/metrics?get={query}')}
            if all(g in values for g in GAUGES):
                rows.append((prefix, values))
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--rest', required=True)
    p.add_argument('--job', required=True)
    p.add_argument('--tm-pid', required=True, type=int)
    p.add_argument('--process-size', required=True, type=int)
    p.add_argument('--out', required=True)
    p.add_argument('--metrics-every', type=float, default=10.0)
    p.add_argument('--timeout', type=float, default=7200.0)
    a = p.parse_args()

    start = time.time()
    rss_rows, cache_rows = [], []
    next_metrics = start
    state = 'RUNNING'
    while time.time() - start < a.timeout:
        now = time.time()
        rss = rss_bytes(a.tm_pid)
        rss_rows.append((round(now - start, 1), rss))
        try:
            state = get(a.rest, f'/jobs/{a.job}')['state']
        except Exception:  # REST busy for a moment: keep sampling
            pass
        if state in ('FINISHED', 'FAILED', 'CANCELED'):
            break
        if now >= next_metrics:
            next_metrics = now + a.metrics_every
            try:
                for prefix, values in sample_caches(a.rest, a.job):
                    cache_rows.append((round(now - start, 1), prefix) + tuple(values[g] for g in GAUGES))
            except Exception as e:
                print(f'metrics sample failed: {e}', file=sys.stderr)
        time.sleep(max(0.0, 1.0 - (time.time() - now)))
    elapsed = time.time() - start

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, 'rss.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(('seconds', 'rss_bytes'))
        w.writerows(rss_rows)
    with open(os.path.join(a.out, 'cache.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(('seconds', 'subtask') + GAUGES)
        w.writerows(cache_rows)

    failures = []
    if state != 'FINISHED':
        failures.append(f'job ended {state} after {elapsed:.0f} s')
    max_rss = max((r for _, r in rss_rows), default=0)
    if max_rss >= a.process_size:
        failures.append(f'max RSS {max_rss >> 20} MiB >= process size {a.process_size >> 20} MiB')
    over_quota = [r for r in cache_rows if r[3] > r[5]]
    if over_quota:
        failures.append(f'{len(over_quota)} samples with bytes > quotaBytes, first {over_quota[0]}')
    full = [r for r in cache_rows if r[5] > 0 and r[3] >= r[5] // 2]
    mismatched = [r for r in full
                  if abs(r[4] - r[3]) > ALLOCATED_TOLERANCE * r[3] + ALLOCATED_SLACK]
    if mismatched:
        failures.append(f'{len(mismatched)} of {len(full)} samples of half-full caches with '
                        f'allocatedBytes off bytes by > 10% + 4 MiB, first {mismatched[0]}')
    if not full:
        failures.append('no sample of a cache at least half full: nothing to compare')

    subtasks = sorted({r[1] for r in cache_rows})
    lines = [
        f'- TaskManager RSS: max {max_rss / 2**20:,.0f} MiB of taskmanager.memory.process.size '
        f'{a.process_size / 2**20:,.0f} MiB ({len(rss_rows)} samples over {elapsed:,.0f} s); '
        f'job {state}',
        f'- Cache samples: {len(cache_rows)} of {len(subtasks)} keyed subtasks; '
        f'{len(full)} of caches at least half full',
        '',
        '| keyed subtask | samples | max bytes (MiB) | quota (MiB) | allocated at max bytes (MiB) '
        '| allocated / bytes | entries at max bytes |',
        '|---|---|---|---|---|---|---|',
    ]
    for s in subtasks:
        rows = [r for r in cache_rows if r[1] == s]
        top = max(rows, key=lambda r: r[3])
        ratio = f'{top[4] / top[3]:.3f}' if top[3] else '-'
        lines.append(f'| `{s}` | {len(rows)} | {top[3] / 2**20:,.1f} | {top[5] / 2**20:,.1f} '
                     f'| {top[4] / 2**20:,.1f} | {ratio} | {top[2]:,} |')
    lines += ['', 'RESULT ' + ('PASS' if not failures else 'FAIL: ' + '; '.join(failures))]
    with open(os.path.join(a.out, 'memory_results.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
