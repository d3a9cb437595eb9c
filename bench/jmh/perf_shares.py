#!/usr/bin/env python3
"""Where a JMH benchmark thread spends its time, from a Linux `perf` recording with call graphs.

  perf record -e cpu-clock -F 999 -g -p <pid of the JMH fork> -o DIR/run.data -- sleep 15
  python3 bench/jmh/perf_shares.py DIR/run.data 'RocksDB.get' 'MemTable::Get&HashLinkList' ...

Start the fork with `-jvmArgsAppend "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"` so
JIT-compiled Java frames have names (the map is written when the fork exits, before this script
runs). The benchmark thread is selected by its name as the kernel truncates it (`--comm`,
default `io.falconstate.`: JMH's worker threads are named after the benchmark method).

librocksdbjni exports only its dynamic symbols, so `perf` leaves most RocksDB frames unnamed.
This script names each of them after the nearest exported symbol below its address, read from
the library inside the frocksdbjni jar in ~/.m2 (or `--rocksdb-library`). Functions that are not
exported (anonymous namespaces, e.g. HashLinkListRep's own methods) are therefore named after
an unrelated exported neighbour: a query such as `HashLinkList` matches them because their
neighbours are HashLinkListRepFactory functions, and the inclusive queries stay meaningful only
together with a real caller (`MemTable::Get&HashLinkList`).

Each query is a substring of frame names; `A&B` counts samples whose stack contains both. Prints
`SHARE <query> <percent of the thread's samples>` per query.
"""
import argparse
import bisect
import glob
import os
import re
import subprocess
import sys
import tempfile
import zipfile

FRAME = re.compile(r"([0-9a-f]+)\s+(.*)\s+\((.*)\)$")


def rocksdb_library(explicit):
    if explicit:
        return explicit
    jars = sorted(glob.glob(os.path.expanduser(
        "~/.m2/repository/com/ververica/frocksdbjni/*/frocksdbjni-*.jar")))
    if not jars:
        sys.exit("no frocksdbjni jar in ~/.m2: pass --rocksdb-library")
    out = os.path.join(tempfile.gettempdir(), "falcon-perf-shares")
    os.makedirs(out, exist_ok=True)
    with zipfile.ZipFile(jars[-1]) as jar:
        return jar.extract("librocksdbjni-linux64.so", out)


def exported_symbols(library):
    text = subprocess.run(["nm", "-D", "--defined-only", "-C", library],
                          check=True, capture_output=True, text=True).stdout
    symbols = []
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            try:
                symbols.append((int(parts[0], 16), parts[2].split("(")[0]))
            except ValueError:
                pass
    symbols.sort()
    return [a for a, _ in symbols], [n for _, n in symbols]


def stacks(perf_data, comm):
    text = subprocess.run(["perf", "script", "-i", perf_data, "--comms", comm,
                           "-F", "ip,sym,dso"],
                          check=True, capture_output=True, text=True).stdout
    stack = []
    for line in text.splitlines():
        if line.strip():
            stack.append(line.strip())
        elif stack:
            yield stack
            stack = []
    if stack:
        yield stack


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("perf_data")
    parser.add_argument("queries", nargs="+")
    parser.add_argument("--comm", default="io.falconstate.")
    parser.add_argument("--rocksdb-library")
    args = parser.parse_args()

    addresses, names = exported_symbols(rocksdb_library(args.rocksdb_library))

    def frame_name(frame):
        m = FRAME.match(frame)
        if not m:
            return frame
        ip, sym, dso = m.groups()
        if "librocksdbjni" in dso and sym.startswith("[unknown]"):
            i = bisect.bisect_right(addresses, int(ip, 16)) - 1
            return names[i] if i >= 0 else sym
        return sym.split("(")[0]

    named = [[frame_name(f) for f in s] for s in stacks(args.perf_data, args.comm)]
    if not named:
        sys.exit("no samples of thread '%s' in %s" % (args.comm, args.perf_data))
    print("samples %d (thread %s)" % (len(named), args.comm))
    for query in args.queries:
        parts = query.split("&")
        hits = sum(1 for s in named if all(any(p in n for n in s) for p in parts))
        print("SHARE %s %.1f" % (query, 100.0 * hits / len(named)))


if __name__ == "__main__":
    main()
