#!/usr/bin/env bash
# JMH benchmarks of the keyed state backends (docs/benchmarks.md). Builds one Flink minor's Falcon
# module (falcon-flink-1.16 unless --flink) and this project in one Maven reactor
# (bench/jmh/reactor/pom.xml: nothing is installed into ~/.m2), and runs
# the selected benchmarks in forked JVMs with Java 17's add-opens and the Falcon native library,
# writing JMH's JSON to build/jmh/<name>.json and RESULT lines (summarize.py) to stdout.
#
#   bench/jmh/run.sh [--no-build] [--flink MINOR] [--native-library PATH] [--quick] [suite ...]
#                    [-- extra JMH args]
#
# Suites: value (ValueState, with -prof gc), jni-path (the cache's Java/JNI path alone),
# checkpoint (checkpoint sync phase), hash-memtable (ValueState put/get skiplist vs HashLinkList),
# range-filter (MapState absent keys), map (MapState through the cache: get, put,
# contains, iterate, remove), list (ListState: a window's adds, get and clear; adds).
# Default: all seven, in that order.
# --quick: -f 1 -wi 2 -i 3 with short iterations (what the shared 2-core machine allows).
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
detect_java_home

build=1
flink_minor=1.16
native="$(native_library)"
quick=0
suites=()
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-build) build=0 ;;
    --flink) flink_minor="$2"; shift ;;
    --native-library) native="$2"; shift ;;
    --quick) quick=1 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n 2,15p "$0"; exit 0 ;;
    *) suites+=("$1") ;;
  esac
  shift
done
[[ ${#suites[@]} -gt 0 ]] || suites=(value jni-path checkpoint hash-memtable range-filter map list)

JMH_DIR="$FALCON_ROOT/bench/jmh"
OUT="$FALCON_ROOT/build/jmh"
mkdir -p "$OUT"

if [[ $build == 1 ]]; then
  if [[ "$native" == "$(native_library)" ]]; then
    # Always (incrementally) rebuild: a libfalcon_jni.so older than the Java code fails in
    # JNI_OnLoad with NoSuchMethodError (RegisterNatives signatures).
    log "native build: dev"
    build_preset dev
  fi
  # One reactor: bench/jmh compiles and runs against java/falcon-flink-<minor>/target/classes of
  # this tree (classpath.txt lists that directory), never against a Falcon jar in ~/.m2.
  log "build falcon-flink-$flink_minor and bench/jmh"
  mapfile -t minor_properties < <(flink_minor_properties "$flink_minor")
  # test-compile: the low-memory benchmark runs the workload in the Falcon jar's test classes.
  mvn -B -ntp -q -f "$JMH_DIR/reactor/pom.xml" test-compile -DskipTests "${minor_properties[@]}"
fi
[[ -f "$native" ]] || die "no native library at $native (build it or pass --native-library)"
[[ -f "$JMH_DIR/target/classpath.txt" ]] || die "bench/jmh is not built (run without --no-build)"
grep -q "falcon-flink-$flink_minor/" "$JMH_DIR/target/classpath.txt" \
  || die "bench/jmh is built for another Flink minor than $flink_minor (run without --no-build)"

opens="$(grep -o '<java17.opens>[^<]*' "$FALCON_ROOT/java/pom.xml" | cut -d'>' -f2)"
CP="$JMH_DIR/target/classes:$(cat "$JMH_DIR/target/classpath.txt")"
# shellcheck disable=SC2206
# -XX:+AlwaysPreTouch: the heap's pages are faulted in at start. Without it, a benchmark that
# allocates (a deserialized value per get: Falcon and stock RocksDB, not the heap backend) pays
# the first touch of every eden page during the measurement, since a short run collects no
# garbage and never reuses eden (docs/decisions/0007-jmh-pre-touches-the-heap.md). A TaskManager
# pays it once, at start-up.
JVM_ARGS=($opens "-Dfalcon.native.library=$native" -Xms2g -Xmx2g -XX:+UseG1GC -XX:+AlwaysPreTouch)

if [[ $quick == 1 ]]; then
  common=(-f 1 -wi 2 -i 3 -w 2s -r 2s)
else
  common=(-f 1 -wi 3 -i 5 -w 5s -r 5s)
fi

jmh() {
  local name="$1"; shift
  log "JMH $name (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
  # JMH's forks inherit the host JVM's options (add-opens, native library, heap).
  "$JAVA_HOME/bin/java" "${JVM_ARGS[@]}" -cp "$CP" org.openjdk.jmh.Main "$@" \
    -rf json -rff "$OUT/$name.json" "${extra[@]}" \
    | tee "$OUT/$name.txt"
  echo "load average after $name: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/$name.txt"
}

for suite in "${suites[@]}"; do
  case "$suite" in
    value) jmh value 'io.falconstate.jmh.ValueStateBenchmark' "${common[@]}" -prof gc ;;
    jni-path) jmh jni-path 'io.falconstate.jmh.JniPathBenchmark' "${common[@]}" -prof gc ;;
    checkpoint) jmh checkpoint 'io.falconstate.jmh.CheckpointSyncBenchmark' -f 1 -wi 3 -i 8 ;;
    hash-memtable) jmh hash-memtable 'io.falconstate.jmh.HashMemtableBenchmark' "${common[@]}" ;;
    range-filter) jmh range-filter 'io.falconstate.jmh.MapStateRangeFilterBenchmark' "${common[@]}" ;;
    map) jmh map 'io.falconstate.jmh.MapStateBenchmark' "${common[@]}" -prof gc ;;
    list) jmh list 'io.falconstate.jmh.ListStateBenchmark' "${common[@]}" ;;
    *) die "unknown suite $suite" ;;
  esac
  python3 "$JMH_DIR/summarize.py" "$OUT/$suite.json" | tee "$OUT/$suite.results"
done
