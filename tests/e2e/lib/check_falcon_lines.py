#!/usr/bin/env python3
"""Checks the [FALCON] lines of TaskManager logs against their exact formats and numbers.

Usage:
  check_falcon_lines.py format LOG...
      every [FALCON] line in the logs has one of the formats of docs/architecture.md ("Log lines")
  check_falcon_lines.py activation LOG --version V --native PATH --policy P --hash on|off
      --range on|off --slots S --managed-bytes M --cache-share A --parallelism P
      --keyed-operators K [--cached NAME=N,...] [--cached-maps NAME=N,...] [--cached-lists NAME=N,...]
      [--hash-tuned NAME=PREFIX,...]
      [--range-tuned NAME=PREFIX,...]
      LOG is the log of a TaskManager that has run exactly one job, with P parallel instances of
      K keyed operators, all in one slot sharing group, and no entry cap
      (state.backend.falcon.cache.entries-per-taskmanager unset). Checks, besides the formats:
      - one activation line: version, library path, cache policy and both tuning switches;
      - one TaskManager line: S slots, and each slot's cache budget is exactly the cache's share of
        the slot's managed memory: floor(floor(M / S) * A * f), where f = 1 is the state backend's
        share of the slot's managed memory when no other consumer (Python, batch operators)
        declares managed memory;
      - one subtask line per keyed operator instance (K * P): task indices 1..P of parallelism
        P, attempt 0; in each slot the keyed subtasks register one after another, so the "slot has
        M keyed subtasks" values are 1..K once per slot; equal weights split the slot budget
        evenly, so a subtask's bytes are floor(slot bytes / k) for a k in M..K (more subtasks may
        have joined by the time the line is written), never more than the slot's;
      - per cached state N lines per instance (--cached NAME=N): "<N'> states (<bytes>)" with
        bytes = floor(slot bytes / k), k in 1..K, and N' = floor(bytes / 136), 136 bytes being
        the cache's charge for its typical 88-byte entry (include/falcon/hot_state_cache.h: the
        24-byte header and 88 bytes make a 112-byte arena block, plus 24 bytes of index and
        sketch share);
        no other state is cached;
      - per cached MapState N lines per instance (--cached-maps NAME=N): "<N'> maps (<bytes>)",
        bytes as above and N' = floor(bytes / 488), the charge of the typical map of the line (4
        entries of 88 bytes of key and value under a 16-byte prefix); no other map is cached;
      - per cached ListState N lines per instance (--cached-lists NAME=N); no other list is cached;
      - per tuned state one line per instance and listed prefix (--hash-tuned accState=22,30:
        each instance logs accState with prefix 22 once and with prefix 30 once); no other state
        is tuned, and no listed state is "left untuned".
Prints one summary line; exit status 0 only when everything matches.
"""
import argparse
import collections
import math
import re
import sys

TYPICAL_ENTRY_CHARGE = 136  # HotStateCache::ChargeFor(0, 88), see the docstring
TYPICAL_MAP_CHARGE = 488  # MapCache::ChargeFor(16, 4, 4 * 88), see the docstring

UNITS = {'bytes': 1, 'kb': 1 << 10, 'mb': 1 << 20, 'gb': 1 << 30, 'tb': 1 << 40}
SIZE = r'(\d+) (bytes|kb|mb|gb|tb)'  # Flink's MemorySize#toString
STATES = r'(?: \((\d+) states\))?'

# The formats of docs/architecture.md, "Log lines", in full (anchored at both ends).
FORMATS = {
    'activation': re.compile(
        r'\[FALCON\] Falcon (\S+) enabled \(native (.+)\): cache (on|off) \(([a-z-]+)\), '
        r'value-state hash memtable (on|off), map-state range filter (on|off), '
        r'lz4 compression (on|off)'),
    'taskmanager': re.compile(
        r'\[FALCON\] configuring falcon cache: TaskManager has (\d+) slots, each slot can cache '
        + SIZE + STATES),
    'subtask': re.compile(
        r'\[FALCON\] subtask (.+) \((\d+)/(\d+)\)#(\d+): slot has (\d+) keyed subtasks, '
        r'this subtask can cache ' + SIZE + STATES),
    'cached': re.compile(
        r'\[FALCON\] <(.+), VALUE> falcon cache enabled, (\d+) states \(' + SIZE + r'\)'),
    'cached-map': re.compile(
        r'\[FALCON\] <(.+), MAP> falcon cache enabled, (\d+) maps \(' + SIZE + r'\)'),
    'cached-list': re.compile(
        r'\[FALCON\] <(.+), LIST> falcon cache enabled, (\d+) lists \(' + SIZE + r'\)'),
    'cache-off': re.compile(
        r'\[FALCON\] <(.+), (VALUE|MAP|LIST)> cache off: (hit ratio \d\.\d\d over \d+ reads|'
        r'\d+ of \d+ operations were not cacheable \(maps over the cap, values over the quota, '
        r'adds to lists not cached, lists evicted\))'
        r'; tried again after \d+ operations'),
    'cache-on': re.compile(
        r'\[FALCON\] <(.+), (VALUE|MAP|LIST)> cache on: hit ratio \d\.\d\d over \d+ reads'),
    'hash': re.compile(
        r'\[FALCON\] (\S+) is valueState, use HashLinkList as memTable structure '
        r'\(prefix (\d+) bytes\)'),
    'range': re.compile(r'\[FALCON\] (\S+) is map, use range filter \(prefix (\d+) bytes\)'),
    'block-cache': re.compile(
        r"\[FALCON\] slot's RocksDB block cache: " + SIZE
        + r" in (\d+) shards? \(RocksDB's default: (\d+)\)"),
    'untuned': re.compile(r'\[FALCON\] (\S+) left untuned: (.+)'),
    'no-memtable-bloom': re.compile(r'\[FALCON\] (\S+) range filter without memtable bloom: (.+)'),
    'wrong-flink': re.compile(
        r'\[FALCON\] this Falcon jar( \(\S+\))? is built for Flink \d+\.\d+ and does not run '
        r'on Flink \S+; .+'),
    'warn': re.compile(
        r'\[FALCON\] WARN native library not loaded \(tried: (.+)\); '
        r'running as the stock RocksDB backend'),
    'timers-step-aside': re.compile(
        r'\[FALCON\] <(.+)> timers held: \d+ over (state\.backend\.falcon\.timers\.held-capacity '
        r'\(\d+\)|the heap share for held timers \(\d+ timers, a tenth of the JVM heap\)); '
        r'written to RocksDB from now on, as stock'),
    'lz4-missing': re.compile(
        r"\[FALCON\] WARN RocksDB's library has no LZ4 \((.+)\); column families keep Snappy"),
    'unknown-option': re.compile(
        r'\[FALCON\] WARN unknown option (state\.backend\.falcon\.\S+); '
        r'did you mean (state\.backend\.falcon\.\S+)\?'),
}

# A log4j line of Flink's pattern: "<date> <time> <LEVEL> <logger> [<thread>] - <message>".
LOG_LINE = re.compile(r'^\S+ \S+ +(INFO|WARN|DEBUG|ERROR|TRACE) +(\S+) +\[.*?\] - (\[FALCON\] .*)$')


def falcon_lines(path):
    """(kind, match) of every logged [FALCON] message; kind None for an unknown format."""
    out = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for raw in f:
            m = LOG_LINE.match(raw.rstrip('\n'))
            if not m or m.group(2) != 'io.falconstate.flink.Falcon':
                continue  # the operator lines' logger; exception text quoting [FALCON] is not one
            text = m.group(3)
            for kind, rx in FORMATS.items():
                fm = rx.fullmatch(text)
                if fm:
                    out.append((kind, fm, text))
                    break
            else:
                out.append((None, None, text))
    return out


def size(number, unit):
    return int(number) * UNITS[unit]


def parse_list(spec):
    """'a=1,b=2,a=3' -> {'a': [1, 3], 'b': [2]}"""
    out = collections.defaultdict(list)
    for item in filter(None, (spec or '').split(',')):
        name, _, value = item.partition('=')
        out[name].append(int(value))
    return out


def check_format(logs):
    problems, count = [], 0
    kinds = collections.Counter()
    for log in logs:
        for kind, _m, text in falcon_lines(log):
            count += 1
            kinds[kind] += 1
            if kind is None:
                problems.append(f'unknown format: {text[:200]}')
    summary = ', '.join(f'{n} {k}' for k, n in sorted(kinds.items(), key=lambda x: str(x[0])))
    return problems, f'{count} [FALCON] lines in {len(logs)} logs, each in an exact format ({summary})'


def check_activation(a):
    problems = []
    lines = falcon_lines(a.log)
    by = collections.defaultdict(list)
    for kind, m, text in lines:
        by[kind].append(m)
        if kind is None:
            problems.append(f'unknown format: {text[:200]}')

    act = by['activation']
    if len(act) != 1:
        problems.append(f'{len(act)} activation lines, expected 1')
    else:
        got = act[0].groups()
        want = (a.version, a.native, 'on', a.policy, a.hash, a.range, a.lz4)
        if got != want:
            problems.append(f'activation line says {got}, expected {want}')
    if by['warn']:
        problems.append('WARN line in a TaskManager that loaded the library')
    if by['lz4-missing'] and a.lz4 == 'on':
        problems.append('LZ4 missing from RocksDB\'s library: ' + by['lz4-missing'][0].group(1))

    tm = by['taskmanager']
    slot_bytes = None
    expected_slot = math.floor((a.managed_bytes // a.slots) * a.cache_share * 1.0)
    if len(tm) != 1:
        problems.append(f'{len(tm)} TaskManager cache lines, expected 1')
    else:
        slots, n, unit, entries = tm[0].groups()
        slot_bytes = size(n, unit)
        if int(slots) != a.slots:
            problems.append(f'TaskManager line: {slots} slots, configured {a.slots}')
        if slot_bytes != expected_slot:
            problems.append(f'slot budget {slot_bytes} bytes != floor(floor({a.managed_bytes} / '
                            f'{a.slots}) * {a.cache_share}) = {expected_slot}')
        if entries is not None:
            problems.append(f'TaskManager line has "({entries} states)" without an entry cap')

    k, p = a.keyed_operators, a.parallelism
    sub = by['subtask']
    if len(sub) != k * p:
        problems.append(f'{len(sub)} subtask lines, expected {k} keyed operators x {p} = {k * p}')
    indices = collections.defaultdict(set)
    registered = []
    for m in sub:
        name, index, par, attempt, in_slot, n, unit, entries = m.groups()
        indices[name].add(int(index))
        registered.append(int(in_slot))
        quota = size(n, unit)
        if int(par) != p or int(attempt) != 0:
            problems.append(f'subtask {name} ({index}/{par})#{attempt}: expected /{p} attempt 0')
        if entries is not None:
            problems.append(f'subtask line has "({entries} states)" without an entry cap')
        if slot_bytes is not None and not any(
                quota == slot_bytes // j for j in range(int(in_slot), k + 1)):
            problems.append(f'subtask {name} ({index}/{par}): {quota} bytes is not the slot\'s '
                            f'{slot_bytes} split evenly over {in_slot}..{k} keyed subtasks')
    if len(indices) != k or any(v != set(range(1, p + 1)) for v in indices.values()):
        problems.append(f'subtask lines cover {dict((n, sorted(v)) for n, v in indices.items())}, '
                        f'expected {k} tasks with indices 1..{p}')
    if sorted(registered) != sorted(list(range(1, k + 1)) * p):
        problems.append(f'"slot has M keyed subtasks" values {sorted(registered)}, expected 1..{k} '
                        f'once per slot')

    want_cached = {name: n[0] * p for name, n in parse_list(a.cached).items()}
    got_cached = collections.Counter()
    for m in by['cached']:
        name, states, n, unit = m.groups()
        got_cached[name] += 1
        quota = size(n, unit)
        if int(states) != quota // TYPICAL_ENTRY_CHARGE:
            problems.append(f'<{name}, VALUE>: {states} states for {quota} bytes, expected '
                            f'{quota // TYPICAL_ENTRY_CHARGE} (bytes / {TYPICAL_ENTRY_CHARGE})')
        if slot_bytes is not None and not any(quota == slot_bytes // j for j in range(1, k + 1)):
            problems.append(f'<{name}, VALUE>: {quota} bytes is not the slot\'s {slot_bytes} split '
                            f'evenly over 1..{k} keyed subtasks')
    if dict(got_cached) != want_cached:
        problems.append(f'cached states {dict(got_cached)}, expected {want_cached}')

    want_maps = {name: n[0] * p for name, n in parse_list(a.cached_maps).items()}
    got_maps = collections.Counter()
    for m in by['cached-map']:
        name, maps, n, unit = m.groups()
        got_maps[name] += 1
        quota = size(n, unit)
        if int(maps) != quota // TYPICAL_MAP_CHARGE:
            problems.append(f'<{name}, MAP>: {maps} maps for {quota} bytes, expected '
                            f'{quota // TYPICAL_MAP_CHARGE} (bytes / {TYPICAL_MAP_CHARGE})')
    if dict(got_maps) != want_maps:
        problems.append(f'cached maps {dict(got_maps)}, expected {want_maps}')

    want_lists = {name: n[0] * p for name, n in parse_list(a.cached_lists).items()}
    got_lists = collections.Counter(m.group(1) for m in by['cached-list'])
    if dict(got_lists) != want_lists:
        problems.append(f'cached lists {dict(got_lists)}, expected {want_lists}')

    for kind, spec, switch in (('hash', a.hash_tuned, a.hash), ('range', a.range_tuned, a.range)):
        want = {name: sorted(prefixes * p) for name, prefixes in parse_list(spec).items()}
        got = collections.defaultdict(list)
        for m in by[kind]:
            got[m.group(1)].append(int(m.group(2)))
        got = {name: sorted(v) for name, v in got.items()}
        if switch == 'off' and got:
            problems.append(f'{kind} tuning is off but states were tuned: {got}')
        if got != want:
            problems.append(f'{kind}-tuned states (name: prefixes) {got}, expected {want}')
    tuned_names = set(parse_list(a.hash_tuned)) | set(parse_list(a.range_tuned))
    for m in by['untuned']:
        if m.group(1) in tuned_names:
            problems.append(f'{m.group(1)} left untuned: {m.group(2)}')
    # The e2e TaskManager's slots have room for every tuned memtable's blocks.
    for m in by['no-memtable-bloom']:
        problems.append(f'{m.group(1)} range filter without memtable bloom: {m.group(2)}')

    summary = (f'1 activation line (cache on ({a.policy}), hash memtable {a.hash}, range filter '
               f'{a.range}, lz4 compression {a.lz4}); {a.slots} slots x {slot_bytes} bytes = {a.cache_share} of '
               f'{a.managed_bytes // a.slots} managed bytes per slot; {len(sub)} subtask lines '
               f'({k} keyed operators x {p}, even split); cached {dict(got_cached)}, maps '
               f'{dict(got_maps)}; tuned '
               f'{sum(len(by[x]) for x in ("hash", "range"))} column families')
    return problems, summary


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest='mode', required=True)
    f = sub.add_parser('format')
    f.add_argument('logs', nargs='+')
    c = sub.add_parser('activation')
    c.add_argument('log')
    c.add_argument('--version', required=True)
    c.add_argument('--native', required=True)
    c.add_argument('--policy', default='w-tinylfu')
    c.add_argument('--hash', choices=('on', 'off'), required=True)
    c.add_argument('--range', choices=('on', 'off'), required=True)
    c.add_argument('--lz4', choices=('on', 'off'), default='on')
    c.add_argument('--slots', type=int, required=True)
    c.add_argument('--managed-bytes', type=int, required=True)
    c.add_argument('--cache-share', type=float, default=0.1)
    c.add_argument('--parallelism', type=int, required=True)
    c.add_argument('--keyed-operators', type=int, required=True)
    c.add_argument('--cached', default='')
    c.add_argument('--cached-maps', default='')
    c.add_argument('--cached-lists', default='')
    c.add_argument('--hash-tuned', default='')
    c.add_argument('--range-tuned', default='')
    a = parser.parse_args()
    if a.mode == 'format':
        problems, summary = check_format(a.logs)
    else:
        problems, summary = check_activation(a)
    if problems:
        print(f'[FALCON] line check FAILED: ' + '; '.join(problems[:8])
              + (f' (+{len(problems) - 8} more)' if len(problems) > 8 else ''))
        return 1
    print(summary)
    return 0


if __name__ == '__main__':
    sys.exit(main())
