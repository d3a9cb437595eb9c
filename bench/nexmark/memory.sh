#!/usr/bin/env bash
# Memory at scale on a real TaskManager (docs/benchmarks.md "Memory at scale"): a Flink 1.16.3
# standalone cluster with Falcon installed as README.md says (tests/e2e/lib/flink.sh), one
# TaskManager with the e2e configuration (taskmanager.memory.process.size 1600m, 2 slots), a
# Nexmark query as a cluster job (unthrottled, parallelism 2, checkpoints every 10 s, its
# changelog into the exactly-once file sink). bench/nexmark/memory_sampler.py samples the
# TaskManager's RSS every second and every keyed subtask's falcon.cache gauges (entries, bytes,
# allocatedBytes, quotaBytes) through REST every 10 s, writes rss.csv, cache.csv and
# memory_results.md to the output directory, and fails when the RSS reaches process.size, a
# cache's bytes exceed its quota, or what its allocators hold strays from its charged bytes.
#
#   bench/nexmark/memory.sh                              # q4, 50 M events (about 10 minutes)
#   bench/nexmark/memory.sh --query q20 --events 10000000 -D taskmanager.memory.process.size=2g
#
# Options: --query Q (default q4), --events N (default 50000000), --output DIR (default
# docs/benchmarks/memory-50m), -D key=value (flink-conf.yaml, repeatable), --no-build.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$FALCON_ROOT/tests/e2e/lib/flink.sh"

query=q4 events=50000000 build=1
out="$FALCON_ROOT/docs/benchmarks/memory-50m"
settings=()
while (($#)); do
  case "$1" in
    --query) query="$2"; shift 2 ;;
    --events) events="$2"; shift 2 ;;
    --output) out="$2"; shift 2 ;;
    -D) settings+=("$2"); shift 2 ;;
    -D*) settings+=("${1#-D}"); shift ;;
    --no-build) build=0; shift ;;
    --help|-h) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (--help)" ;;
  esac
done

run_dir="$FALCON_ROOT/build/nexmark-memory"
home="$run_dir/flink"
rm -rf "$run_dir" && mkdir -p "$run_dir"
if ((build)); then
  "$FALCON_ROOT/scripts/setup.sh"
  detect_java_home
  build_preset dev
  mvn_cmd -q package -DskipTests -pl falcon-flink-1.16 -am
else
  detect_java_home
fi
jar="$FALCON_ROOT/java/falcon-flink-1.16/target/falcon-flink-1.16-$FALCON_VERSION.jar"
so="$(native_library)"
[[ -f "$jar" && -f "$so" ]] || die "missing $jar or $so (run without --no-build)"

flink_assemble
JOB_JAR="$run_dir/job/nexmark.jar"
# shellcheck source=../../tests/e2e/jobs/nexmark.sh
source "$FALCON_ROOT/tests/e2e/jobs/nexmark.sh"
e2e_job_build || die "cannot build the Nexmark cluster job"

flink_install "$home"
falcon_install "$home" "$jar" "$so"
for kv in "${settings[@]}"; do flink_conf_set "$home" "${kv%%=*}" "${kv#*=}"; done
process_size="$(flink_conf_get "$home" taskmanager.memory.process.size)"

trap cluster_stop EXIT
cluster_start_jobmanager "$home" || die "the JobManager did not start"
cluster_start_taskmanager "$home" 1 || die "the TaskManager did not start"
log "Nexmark $query, $events events, TaskManager process size $process_size"
t0=$SECONDS
job="$(flink_submit "$home" "$JOB_JAR" -- --query "$query" --output "$run_dir/out" \
  --events "$events" --seed 42 --event-time-rate 1000 --source out-of-order.group-size=50 \
  --checkpoint-interval-ms 10000)" || die "submission failed"
echo "job $job submitted"

rc=0
python3 "$FALCON_ROOT/bench/nexmark/memory_sampler.py" --rest "$(rest_url "$home")" --job "$job" \
  --tm-pid "$TM_PID" --process-size "$(to_bytes "$process_size")" --out "$out" || rc=$?
{
  echo
  extra=""; ((${#settings[@]})) && extra="$(printf ' -D %s' "${settings[@]}")"
  echo "- Command: \`bench/nexmark/memory.sh --query $query --events $events$extra\`," \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(( SECONDS - t0 )) s; $(nproc) cores"
  echo "- [FALCON] lines of the TaskManager:"
  echo
  echo '```'
  grep -h '\[FALCON\]' "$home/log/flink-taskexecutor-1.log" | sed 's/^.*\[FALCON\]/[FALCON]/' | sort | uniq -c | sort -rn | head -20 || true
  echo '```'
} >>"$out/memory_results.md"
exit "$rc"
