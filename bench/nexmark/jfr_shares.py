#!/usr/bin/env python3
"""Where a Nexmark run's task threads spend their time, from a JFR recording.

  bench/nexmark/run.sh ... --reps 1 --jvm-opt -XX:StartFlightRecording=filename=DIR/q4.jfr,settings=profile  (one backend per run: JDK 17 does not expand %p here)
  python3 bench/nexmark/jfr_shares.py DIR/q4.jfr [--top N]

Reads `jfr print --json` (the JDK's own tool) of jdk.ExecutionSample (Java frames, 10 ms
period with settings=profile) and jdk.NativeMethodSample (threads in native code, 20 ms period,
so weighted x2). Only Flink task threads count (names like "Join[10] -> Calc[11] (1/1)#0").
Prints the share of each task thread, the share of samples inside RocksDB's Java API (org.rocksdb)
attributed to the first caller outside RocksDB and Flink's RocksDB state layer, Falcon's share
(io.falconstate.flink frames), and the most frequent top frames.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

TASK_THREAD = re.compile(r"\(\d+/\d+\)#\d+$")
WEIGHTS = {"jdk.ExecutionSample": 1, "jdk.NativeMethodSample": 2}
STATE_LAYER = ("org.rocksdb.", "org.apache.flink.contrib.streaming.state.")


def frame_name(frame):
    method = frame.get("method") or {}
    cls = ((method.get("type") or {}).get("name") or "?").replace("/", ".")
    return cls + "." + (method.get("name") or "?")


def jfr_tool():
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "jfr")):
        return os.path.join(home, "bin", "jfr")
    tool = shutil.which("jfr")
    if not tool:
        sys.exit("no jfr tool: set JAVA_HOME to a JDK")
    return tool


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recording")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    out = subprocess.run(
        [jfr_tool(), "print", "--json", "--stack-depth", "64",
         "--events", "jdk.ExecutionSample,jdk.NativeMethodSample", args.recording],
        check=True, capture_output=True, text=True).stdout
    events = json.loads(out)["recording"]["events"]

    threads = collections.Counter()
    rocks = collections.Counter()
    tops = collections.Counter()
    falcon = 0
    total = 0
    for event in events:
        weight = WEIGHTS.get(event["type"], 0)
        values = event["values"]
        thread = ((values.get("sampledThread") or {}).get("javaName")) or ""
        if not weight or not TASK_THREAD.search(thread):
            continue
        frames = ((values.get("stackTrace") or {}).get("frames")) or []
        names = [frame_name(f) for f in frames]
        total += weight
        threads[re.sub(r" \(\d+/\d+\)#\d+$", "", thread)] += weight
        if names:
            tops[names[0]] += weight
        if any(n.startswith("io.falconstate.flink.") for n in names):
            falcon += weight
        rocks_at = next((i for i, n in enumerate(names) if n.startswith("org.rocksdb.")), None)
        if rocks_at is not None:
            caller = next((n for n in names[rocks_at:] if not n.startswith(STATE_LAYER)), "?")
            rocks[(names[rocks_at], caller)] += weight
    if total == 0:
        sys.exit("no task-thread samples in " + args.recording)

    def pct(x):
        return "%5.1f %%" % (100.0 * x / total)

    print("task-thread samples (weighted): %d" % total)
    print("\nby task thread:")
    for name, w in threads.most_common():
        print("  %s  %s" % (pct(w), name))
    print("\ninside RocksDB's Java API (org.rocksdb): %s" % pct(sum(rocks.values())))
    for (method, caller), w in rocks.most_common(args.top):
        print("  %s  %s  <-  %s" % (pct(w), method, caller))
    print("\nwith a Falcon frame (io.falconstate.flink) on the stack: %s" % pct(falcon))
    print("\ntop frames:")
    for name, w in tops.most_common(args.top):
        print("  %s  %s" % (pct(w), name))


if __name__ == "__main__":
    main()
