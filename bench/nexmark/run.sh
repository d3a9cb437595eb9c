#!/usr/bin/env bash
# The Nexmark benchmark harness (docs/benchmarks.md "Nexmark"): installs
# what is missing (incl. matplotlib in .venv), builds the dev native library and
# the jars, then runs the matrix queries x mini-batch x parallelism x backends,
# each run in a fresh JVM on a Flink MiniCluster, backends interleaved, and
# writes nexmark_runs.csv, nexmark_summary.csv, nexmark_results.md and the PNG
# charts to the output directory (default docs/benchmarks/).
#
#   bench/nexmark/run.sh                                  # the full matrix (10M events, 3 reps: hours)
#   bench/nexmark/run.sh --queries q4 --events 1000000 --reps 2 --mini-batch off --parallelism 1
#   bench/nexmark/run.sh --cache-sweep 1mb,8mb,128mb    # the issue's matrix + Falcon at 3 more cache sizes
#   bench/nexmark/run.sh --queries q4 --sweep 'lru:state.backend.falcon.cache.policy=lru'
#
# Script options (before or between the harness options):
#   --flink MINOR           the Flink minor to run on, 1.16 (default) to 1.20: its Falcon jar and
#                           that minor's Flink and frocksdbjni for every backend
#   --native-library PATH   libfalcon_jni.so for the runs (default build/dev/native/libfalcon_jni.so)
#   --output DIR            CSVs, markdown and charts (default docs/benchmarks)
#   --no-build              skip setup and builds (use what is built)
#   --no-charts             skip the PNG charts
# Every other option goes to the harness (io.falconstate.nexmark.bench.NexmarkBenchmark):
# --queries --events --reps --backends --mini-batch --parallelism --sweep --cache-sweep
# --cache-size-key --falcon-conf --conf
# --source --checkpoint-interval-ms --warmup --heap --managed-memory --work --jvm-opt
# --run-timeout-s --falcon-lines --title --dry-run (run with --help for the list and defaults).
# The old spellings --out and --minibatch still work.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

native="$(native_library)"
build=1
charts=1
out="$FALCON_ROOT/docs/benchmarks"
harness_args=()
flink_minor=1.16
while (($#)); do
  case "$1" in
    --flink) flink_minor="$2"; shift 2 ;;
    --native-library) native="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-charts) charts=0; shift ;;
    --output|--out) out="$2"; shift 2 ;;
    # The harness's old spelling, in the commands docs/benchmarks/*/nexmark_results.md quote.
    --minibatch) harness_args+=(--mini-batch "$2"); shift 2 ;;
    --help|-h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
      harness_args+=(--help); build=0; charts=0; shift ;;
    *) harness_args+=("$1"); shift ;;
  esac
done

if ((build)); then
  if ((charts)); then "$FALCON_ROOT/scripts/setup.sh" python; else "$FALCON_ROOT/scripts/setup.sh"; fi
  detect_java_home
  log "native build: dev"
  build_preset dev
  log "Java build (falcon-flink-$flink_minor, falcon-nexmark on Flink $flink_minor)"
  mapfile -t minor_properties < <(flink_minor_properties "$flink_minor")
  mvn_cmd -q -pl falcon-nexmark -am install -DskipTests "${minor_properties[@]}"
else
  detect_java_home
fi

module="$FALCON_ROOT/java/falcon-nexmark/target"
[[ -f "$module/nexmark.classpath" ]] || die "missing $module/nexmark.classpath (run without --no-build)"
grep -q "falcon-flink-$flink_minor/" "$module/nexmark.classpath" \
  || die "falcon-nexmark is built for another Flink minor than $flink_minor (run without --no-build)"
[[ -f "$native" ]] || die "missing native library $native"
# Freeze Falcon's jars and native library for the whole run: a rebuild or a `mvn install` of
# the Falcon jar during a long matrix must not change what the later runs measure.
snapshot="$FALCON_ROOT/build/nexmark-bench/classpath-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$snapshot"
cp "$module/falcon-nexmark-$FALCON_VERSION.jar" "$snapshot/"
cp "$native" "$snapshot/libfalcon_jni.so"
native="$snapshot/libfalcon_jni.so"
classpath="$snapshot/falcon-nexmark-$FALCON_VERSION.jar"
IFS=":" read -r -a entries < "$module/nexmark.classpath" || true  # no trailing newline
for entry in "${entries[@]}"; do
  case "$entry" in
    */io/falconstate/*|*/falcon-flink-*/target/*)
      cp -r "$entry" "$snapshot/"; classpath+=":$snapshot/$(basename "$entry")" ;;
    *) classpath+=":$entry" ;;
  esac
done
# shellcheck disable=SC2207  # the flags are space-separated by design
module_flags=($(grep -m1 -o '<java17.opens>[^<]*' "$FALCON_ROOT/java/pom.xml" | cut -d'>' -f2))

# The command the report quotes: what reproduces the run, the Flink minor included.
quoted=""
[[ "$flink_minor" != 1.16 ]] && quoted=" --flink $flink_minor"
((${#harness_args[@]})) && quoted+="$(printf ' %q' "${harness_args[@]}")"

log "Nexmark benchmark (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
mkdir -p "$out"
status=0
"$JAVA_HOME/bin/java" "${module_flags[@]}" -Xmx256m -cp "$classpath" \
  -Dfalcon.native.library="$native" \
  io.falconstate.nexmark.bench.NexmarkBenchmark \
  --native-library "$native" --classpath "$classpath" --java "$JAVA_HOME/bin/java" \
  --output "$out" --work "$FALCON_ROOT/build/nexmark-bench" \
  --command "bench/nexmark/run.sh$quoted" \
  ${harness_args[@]+"${harness_args[@]}"} || status=$?

if ((charts)) && [[ -f "$out/nexmark_summary.csv" ]]; then
  python="$FALCON_VENV/bin/python"
  [[ -x "$python" ]] || python=python3
  "$python" "$FALCON_ROOT/bench/nexmark/charts.py" "$out" || status=$?
fi
exit "$status"
