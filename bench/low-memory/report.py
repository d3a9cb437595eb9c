#!/usr/bin/env python3
"""Turns the RESULT lines of the low-memory grid (bench/low-memory/run.sh) into a Markdown table
(grid.md: per cell, each configuration's speed against stock and its flushes against stock's) and,
when matplotlib is there, a chart (low_memory.png: one panel per state count, the ratio to stock
over managed memory per slot, one line per configuration).

    report.py <results.txt> <output directory>
"""
import collections
import os
import re
import sys

RESULT = re.compile(r'^RESULT lowmem (.*)$')


def parse(path):
    cells = collections.OrderedDict()
    configs = []
    with open(path) as f:
        for line in f:
            m = RESULT.match(line.strip())
            if not m:
                continue
            fields = dict(kv.split('=', 1) for kv in m.group(1).split())
            key = (int(fields['managed_mb']), int(fields['states']))
            cells.setdefault(key, {})[fields['config']] = fields
            if fields['config'] not in configs:
                configs.append(fields['config'])
    return cells, configs


def table(cells, configs):
    others = [c for c in configs if c != 'rocksdb']
    head = ['managed MB / slot', 'states', 'stock s', 'stock flushes'] + others
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    for (mb, states), runs in cells.items():
        stock = runs['rocksdb']
        row = [str(mb), str(states), stock['seconds'], stock['flushes']]
        for c in others:
            r = runs.get(c)
            row.append('-' if r is None else f"{float(r['ratio_vs_rocksdb']):.2f}x ({r['flushes']})")
        lines.append('| ' + ' | '.join(row) + ' |')
    return '\n'.join(lines) + '\n'


def chart(cells, configs, out):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('matplotlib not found: no chart (scripts/setup.sh python)', file=sys.stderr)
        return
    states = sorted({s for _, s in cells})
    fig, axes = plt.subplots(1, len(states), figsize=(4 * len(states), 3.6), sharey=True)
    if len(states) == 1:
        axes = [axes]
    for ax, n in zip(axes, states):
        mbs = sorted(mb for mb, s in cells if s == n)
        for c in configs:
            ys = [float(cells[(mb, n)][c]['ratio_vs_rocksdb']) if c in cells[(mb, n)] else None
                  for mb in mbs]
            style = '-o' if c == 'defaults' else ('--' if c == 'rocksdb' else '-')
            ax.plot(mbs, ys, style, label=c, linewidth=2.2 if c == 'defaults' else 1.2)
        ax.set_xscale('log', base=2)
        ax.set_yscale('log', base=2)
        ax.set_xticks(mbs)
        ax.set_xticklabels([str(m) for m in mbs])
        ax.set_title(f'{n} state{"s" if n > 1 else ""}')
        ax.set_xlabel('managed memory per slot (MB)')
        ax.grid(True, which='both', alpha=0.3)
    axes[0].set_ylabel('speed vs stock RocksDB (x)')
    axes[-1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, 'low_memory.png'), dpi=110)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cells, configs = parse(sys.argv[1])
    if not cells:
        sys.exit(f'no RESULT lowmem lines in {sys.argv[1]}')
    os.makedirs(sys.argv[2], exist_ok=True)
    with open(os.path.join(sys.argv[2], 'grid.md'), 'w') as f:
        f.write(table(cells, configs))
    chart(cells, configs, sys.argv[2])


if __name__ == '__main__':
    main()
