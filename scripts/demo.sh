#!/usr/bin/env bash
# The quick start's main job (README): on a fresh machine, installs what is
# missing, builds the dev native library and the jars, then runs Nexmark q4 on a
# local Flink MiniCluster with the stock RocksDB backend and with Falcon, prints
# Falcon's [FALCON] lines and a side-by-side table of events/s per core with the
# speedup. The runs take about three minutes on two idle cores (setup and the
# first build not counted). Options are the harness's (bench/nexmark/run.sh),
# e.g. `scripts/demo.sh --events 500000`.
set -euo pipefail
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/nexmark/demo.sh" "$@"
