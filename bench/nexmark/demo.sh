#!/usr/bin/env bash
# The main job (README's first command): on a fresh machine, installs what is
# missing, builds the dev native library and the jars, then runs Nexmark q4 on a
# Flink MiniCluster with the stock RocksDB backend and with Falcon (one fresh JVM
# each, parallelism 1, mini-batch off, incremental checkpoints every 10 s, the
# first 20% of events as warm-up), prints Falcon's [FALCON] lines and a
# side-by-side table of events/s per core with the speedup.
#
# The runs take about three minutes on two idle cores (setup and the first build
# not counted). Any harness option overrides the demo's, e.g.
#   bench/nexmark/demo.sh --events 500000          # shorter
#   bench/nexmark/demo.sh --backends rocksdb,falcon,hashmap
# DEMO_EVENTS sets the event count (default 2,000,000).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
exec "$here/run.sh" --no-charts --output "$root/build/nexmark-demo" \
  --title "Nexmark q4 demo: stock RocksDB vs Falcon" \
  --queries q4 --backends rocksdb,falcon --mini-batch off --parallelism 1 --reps 1 \
  --events "${DEMO_EVENTS:-2000000}" --falcon-lines 10 "$@"
