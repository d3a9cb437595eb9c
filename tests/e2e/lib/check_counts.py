#!/usr/bin/env python3
"""Checks the committed output of tests/e2e/job KeyedCountJob exactly.

Usage: check_counts.py OUTPUT_DIR RECORDS KEYS

Reads every committed part file under OUTPUT_DIR (FileSink keeps in-progress and pending files
hidden, their names start with '.'), and checks that for every key k in 0..KEYS-1 the lines
"k,count,sum,mapTotal" carry exactly the counts 1..c(k), each once, that mapTotal == count on
every line, and that the line with count c(k) carries the sum of all n in 1..RECORDS with
n % KEYS == k. A lost record shows as a missing count, a replayed one as a duplicate.
Prints one summary line; exit status 0 only when everything matches.
"""
import os
import sys


def main():
    out_dir, records, keys = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    expected_count = [0] * keys
    expected_sum = [0] * keys
    for n in range(1, records + 1):
        expected_count[n % keys] += 1
        expected_sum[n % keys] += n

    seen = {}
    last_sum = {}
    files = 0
    lines = 0
    problems = []
    for root, _dirs, names in os.walk(out_dir):
        for name in names:
            if name.startswith('.'):
                continue
            files += 1
            with open(os.path.join(root, name), encoding='utf-8') as f:
                for line in f:
                    lines += 1
                    k, c, s, m = (int(x) for x in line.strip().split(','))
                    if m != c and len(problems) < 10:
                        problems.append(f'key {k} count {c}: map total {m}')
                    counts = seen.setdefault(k, set())
                    if c in counts and len(problems) < 10:
                        problems.append(f'key {k}: count {c} emitted twice (duplicate)')
                    counts.add(c)
                    if 0 <= k < keys and c == expected_count[k]:
                        last_sum[k] = s

    for k in range(keys):
        counts = seen.get(k, set())
        want = set(range(1, expected_count[k] + 1))
        if counts != want and len(problems) < 10:
            missing = sorted(want - counts)
            extra = sorted(counts - want)
            problems.append(f'key {k}: missing counts {missing[:5]} ({len(missing)}), '
                            f'unexpected {extra[:5]} ({len(extra)})')
        elif last_sum.get(k) != expected_sum[k] and len(problems) < 10:
            problems.append(f'key {k}: final sum {last_sum.get(k)} != {expected_sum[k]}')
    extra_keys = sorted(set(seen) - set(range(keys)))
    if extra_keys:
        problems.append(f'unexpected keys {extra_keys[:5]}')

    if lines != records and not problems:
        problems.append(f'{lines} lines for {records} records')
    if problems:
        print(f'result check FAILED ({files} files, {lines} lines): ' + '; '.join(problems))
        return 1
    print(f'result check ok: {files} committed files, {lines} lines = {records} records, '
          f'{keys} keys, every count exactly once, final sums exact')
    return 0


if __name__ == '__main__':
    sys.exit(main())
