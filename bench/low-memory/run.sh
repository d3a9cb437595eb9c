#!/usr/bin/env bash
# The low-memory grid (docs/benchmarks.md, "Little managed memory"): the same keyed command stream
# (several MapStates and ValueStates, TTL, iteration with removes, absent keys, checkpoints) on the
# stock RocksDB backend and on Falcon's configurations, swept over managed memory per slot and the
# number of states. Prints a RESULT line per cell and configuration (ratio to stock, RocksDB's
# write-stall time and flush count), writes everything to <output>/results.txt, and the grid as
# <output>/grid.md and <output>/low_memory.png (bench/low-memory/report.py).
#
#   bench/low-memory/run.sh [--no-build] [--output DIR (docs/benchmarks/low-memory)] [grid options]
#
# Grid options (LowMemoryBenchmark): --managed-mb 4,16,64,256,1024  --states 1,5,20,50
#   --configs defaults,cache-off,tuning-off,hash-off,range-off  --ops 200000  --checkpoints 4
#   --reps 3  --seed 42
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
detect_java_home

build=1
output="$FALCON_ROOT/docs/benchmarks/low-memory"
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-build) build=0 ;;
    --output) output="$2"; shift ;;
    -h|--help) sed -n 2,13p "$0"; exit 0 ;;
    *) args+=("$1") ;;
  esac
  shift
done

JMH_DIR="$FALCON_ROOT/bench/jmh"
if [[ $build == 1 ]]; then
  log "native build: dev"
  build_preset dev
  log "build falcon-flink-1.16 (with its test classes: the workload) and bench/jmh"
  mvn -B -ntp -q -f "$JMH_DIR/reactor/pom.xml" test-compile -DskipTests
fi
[[ -f "$JMH_DIR/target/classpath.txt" ]] || die "bench/jmh is not built (run without --no-build)"

mkdir -p "$output"
opens="$(grep -o '<java17.opens>[^<]*' "$FALCON_ROOT/java/pom.xml" | cut -d'>' -f2)"
CP="$JMH_DIR/target/classes:$(cat "$JMH_DIR/target/classpath.txt")"
log "low-memory grid (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
# shellcheck disable=SC2086
"$JAVA_HOME/bin/java" $opens "-Dfalcon.native.library=$(native_library)" -Xms2g -Xmx2g \
  -XX:+UseG1GC \
  -cp "$CP" io.falconstate.jmh.lowmem.LowMemoryBenchmark "${args[@]}" | tee "$output/results.txt"
echo "load average after the grid: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$output/results.txt"
# The grid as a Markdown table (grid.md) and a chart (low_memory.png, with the project's .venv:
# scripts/setup.sh python).
python="$FALCON_VENV/bin/python"
[[ -x "$python" ]] || python=python3
"$python" "$FALCON_ROOT/bench/low-memory/report.py" "$output/results.txt" "$output"
