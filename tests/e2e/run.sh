#!/usr/bin/env bash
# End-to-end test on a real Flink standalone cluster (FLINK_VERSION, default 1.16.3, assembled from
# that version's Maven artifacts): a JobManager and TaskManagers as separate JVMs, Falcon installed
# from its release bundle exactly as the bundle's INSTALL.txt / docs/deployment.md say (the jar
# of that Flink minor and libfalcon_jni.so copied into lib/, the configuration lines added), jobs
# submitted with bin/flink's CliFrontend, state checked through REST, logs and the committed job
# output.
#
# Scenarios (each prints PASS/FAIL with its time; the last line is "N passed, M failed"):
#   falcon-activation     a Nexmark q4 job (E2E_JOB) runs under Falcon with both column-family
#                         tunings on; the TaskManager log's [FALCON] lines are checked in their
#                         exact formats and numbers (tests/e2e/lib/check_falcon_lines.py): the
#                         activation line, slots and the slot budget = the cache's share of the
#                         slot's managed memory, one line per keyed subtask with the even split,
#                         each cached state (states = bytes / 136), each tuned column family
#   kill-9-recovery       kill -9 the TaskManager mid-run, start a new one: restore from the last
#                         checkpoint; the committed q4 result equals the generator oracle exactly
#   savepoint-switch      stop-with-savepoint on Falcon -> resume on stock rocksdb -> savepoint
#                         -> resume on Falcon: the q4 result exactly as an uninterrupted run
#   variant-unaligned, variant-local-recovery, variant-heap-timers
#                         short runs of keyed-count (E2E_VARIANT_JOB) under Falcon that fail once
#                         (injected) and restart in the same TaskManager: unaligned checkpoints,
#                         restore from TaskManager-local state, heap timers on RocksDB (always on
#                         a job with timers; q4 has none); committed output exactly once
#   variant-self-switching
#                         the same with a 50-entry cache: states switch to RocksDB and back
#                         ("cache off" lines in the TaskManager log), committed output exactly once
#   rescale               a second TaskManager (2 x 2 slots); keyed-count at p 2 -> 4 -> 1 through
#                         savepoints, then -> 2 through a retained incremental checkpoint; every
#                         count exactly once; the [FALCON] subtask lines follow each layout
#   tm-memory             TaskManager RSS stays below taskmanager.memory.process.size
#   missing-native        no libfalcon_jni.so in lib/: WARN line, stock behaviour, exact q4 result
#   native-required       ... with state.backend.falcon.native.required: true the job fails
#                         naming the library
#   falcon-log-format     every [FALCON] line of every TaskManager log of the run has an exact
#                         format of docs/architecture.md
#
# E2E_SCOPE=core runs falcon-activation, kill-9-recovery and falcon-log-format only (the Flink
# minors between the fully tested ones, scripts/test-extended.sh).
#
# Inputs (environment): FLINK_VERSION (default 1.16.3), E2E_SCOPE (full or core, default full),
# FALCON_BUNDLE (default: dist/falcon-<v>-flink-<minor>.tar.gz, built by scripts/release.sh around
# FALCON_NATIVE), FALCON_NATIVE (default: build/dev/native/libfalcon_jni.so),
# E2E_TIMEOUT (seconds, default 540), E2E_BUILD (default build/e2e), E2E_JOB (default nexmark),
# E2E_VARIANT_JOB (default keyed-count).
#
# Jobs are pluggable: tests/e2e/jobs/<name>.sh defines the hooks (contract in
# jobs/keyed-count.sh): e2e_job_build, e2e_job_args, e2e_job_check, e2e_job_heap_timer_evidence,
# the input sizes, and optionally e2e_job_falcon_expectations and JOB_HAS_TIMERS. jobs/nexmark.sh
# packages java/falcon-nexmark into a job jar (NexmarkClusterJob, submitted with bin/flink run)
# and checks results with NexmarkResultCheck; jobs/keyed-count.sh runs tests/e2e/job. Everything
# in this file is job-agnostic.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

# A hard bound on the whole run; on expiry the EXIT trap still stops the cluster.
if [[ -z "${E2E_UNDER_TIMEOUT:-}" ]]; then
  export E2E_UNDER_TIMEOUT=1
  exec timeout -k 30 "${E2E_TIMEOUT:-540}" bash "${BASH_SOURCE[0]}" "$@"
fi

source "$FALCON_ROOT/tests/e2e/lib/flink.sh"

# One compound command: bash parses all of it before running any, so editing this file during a
# run cannot change the run.
{
set +e  # scenarios record failures themselves; helpers return non-zero on failure
set -o pipefail

detect_java_home
RUN_DIR="$E2E_BUILD/run"
HOME_DIR="$RUN_DIR/flink"       # the installation under test ($FLINK_HOME)
PASSED=0
FAILED=0
SAMPLER_PID=""

cleanup() {
  [[ -n "$SAMPLER_PID" ]] && kill "$SAMPLER_PID" 2>/dev/null
  cluster_stop
}
trap cleanup EXIT
trap 'echo "e2e: interrupted (timeout?)" >&2; exit 143' TERM INT

pass() { PASSED=$((PASSED + 1)); printf 'PASS %-20s (%ss) %s\n' "$1" "$2" "${3:-}"; }
fail() {
  FAILED=$((FAILED + 1)); printf 'FAIL %-20s (%ss) %s\n' "$1" "$2" "$3"
  echo "  logs: $HOME_DIR/log; task failure causes there:" >&2
  grep -h -o 'to FAILED with failure cause: .*' "$HOME_DIR"/log/flink-taskexecutor-*.log 2>/dev/null \
    | cut -c1-300 | sort | uniq -c | head -n 5 | sed 's/^/    /' >&2
}
# Setup failed: no scenario can run.
setup_failed() {
  printf 'FAIL %-20s %s\n' setup "$1"
  echo "0 passed, 1 failed"
  exit 1
}

# -- the jobs --------------------------------------------------------------------------------

# Jobs are pluggable: tests/e2e/jobs/<name>.sh defines the hooks (see jobs/keyed-count.sh).
# E2E_JOB runs the main scenarios (activation, kill-9-recovery, savepoint-switch, missing-native,
# native-required); E2E_VARIANT_JOB the short variants. The heap-timer variant needs a job with
# timers: it runs on keyed-count when the variant job has none.
E2E_JOB="${E2E_JOB:-nexmark}"
E2E_VARIANT_JOB="${E2E_VARIANT_JOB:-keyed-count}"

# Makes NAME the current job: sourcing its file replaces the hooks and sizes of the previous one.
use_job() {
  JOB_HAS_TIMERS=true
  e2e_job_falcon_expectations() { :; }  # optional hook: what the [FALCON] lines must show
  JOB_JAR="$RUN_DIR/job/$1/$1.jar"
  # shellcheck disable=SC1090
  source "$FALCON_ROOT/tests/e2e/jobs/$1.sh"
}
submit() {  # submit [CLI options] -- [e2e_job_args arguments]
  local -a cli=()
  while (( $# )) && [[ "$1" != "--" ]]; do cli+=("$1"); shift; done
  (( $# )) && shift
  # shellcheck disable=SC2046
  flink_submit "$HOME_DIR" "$JOB_JAR" "${cli[@]}" -- $(e2e_job_args "$@")
}

# -- helpers -----------------------------------------------------------------------------------

tm_log() { echo "$HOME_DIR/log/flink-taskexecutor-$1.log"; }

# Samples the RSS of every TaskManager started so far (tm.pids), once a second, into rss.log.
start_rss_sampler() {
  (
    while true; do
      for pid in $(cat "$RUN_DIR/tm.pids" 2>/dev/null); do
        echo "$pid $(rss_bytes "$pid")"
      done >>"$RUN_DIR/rss.log"
      sleep 1
    done
  ) &
  SAMPLER_PID=$!
}

start_taskmanager() {
  cluster_start_taskmanager "$HOME_DIR" "$1" || return 1
  echo "$TM_PID" >>"$RUN_DIR/tm.pids"
}

start_cluster() {
  cluster_start_jobmanager "$HOME_DIR" && start_taskmanager "$1"
}

elapsed() { echo $((SECONDS - $1)); }

# -- setup -------------------------------------------------------------------------------------

t0=$SECONDS
rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
flink_assemble || setup_failed "cannot assemble Flink $FLINK_VERSION"

FLINK_MINOR="${FLINK_VERSION%.*}"
E2E_SCOPE="${E2E_SCOPE:-full}"
FALCON_NATIVE="${FALCON_NATIVE:-$(native_library)}"
[[ -f "$FALCON_NATIVE" ]] || setup_failed "no $FALCON_NATIVE (build the dev preset first)"
if [[ -z "${FALCON_BUNDLE:-}" ]]; then
  # The bundle a release would ship, around the library under test.
  native_dir="$RUN_DIR/native"
  mkdir -p "$native_dir/linux-$(uname -m)"
  cp "$FALCON_NATIVE" "$native_dir/linux-$(uname -m)/"
  "$FALCON_ROOT/scripts/release.sh" --flink "$FLINK_MINOR" --native-dir "$native_dir" >/dev/null \
    || setup_failed "cannot build the Falcon bundle for Flink $FLINK_MINOR"
  FALCON_BUNDLE="$FALCON_ROOT/dist/falcon-$FALCON_VERSION-flink-$FLINK_MINOR.tar.gz"
fi
[[ -f "$FALCON_BUNDLE" ]] || setup_failed "no bundle $FALCON_BUNDLE"
# The heap-timer variant's job: the variant job if it has timers, else keyed-count.
use_job "$E2E_VARIANT_JOB"
TIMER_JOB="$E2E_VARIANT_JOB"
[[ "$JOB_HAS_TIMERS" == true ]] || TIMER_JOB=keyed-count
for job in $(printf '%s\n' "$E2E_JOB" "$E2E_VARIANT_JOB" "$TIMER_JOB" | sort -u); do
  t=$SECONDS
  use_job "$job"
  e2e_job_build || setup_failed "cannot build the $job job"
  echo "job $job built in $(elapsed "$t") s: $JOB_JAR"
done

log "installing Flink $FLINK_VERSION + Falcon $FALCON_VERSION ($(basename "$FALCON_BUNDLE")) into $HOME_DIR"
flink_install "$HOME_DIR"
falcon_install_bundle "$HOME_DIR" "$FALCON_BUNDLE" || setup_failed "cannot install $FALCON_BUNDLE"
PROCESS_SIZE="$(flink_conf_get "$HOME_DIR" taskmanager.memory.process.size)"
echo "setup took $(elapsed "$t0") s"

# -- cluster 1: Falcon with its native library -------------------------------------------------

log "cluster 1: Falcon installed (jar + libfalcon_jni.so + conf lines)"
t=$SECONDS
# Local recovery, as an operator enables it (used by the variant-local-recovery scenario), and
# both column-family tunings, so the [FALCON] tuning lines appear for the job's states.
flink_conf_set "$HOME_DIR" state.backend.local-recovery true
flink_conf_set "$HOME_DIR" state.backend.falcon.tuning.value-state.hash-memtable true
flink_conf_set "$HOME_DIR" state.backend.falcon.tuning.map-state.range-filter true
start_cluster 1 || setup_failed "cluster 1 did not start"
echo "JobManager and TaskManager up in $(elapsed "$t") s"
start_rss_sampler
# TaskManager 1's managed memory as Flink computed it (the slot budgets derive from it).
TM1_MANAGED="$(rest_get "$HOME_DIR" /taskmanagers/taskmanager-1 "j['memoryConfiguration']['managedMemory']")"

# falcon-activation + kill-9-recovery: one job, killed mid-run.
use_job "$E2E_JOB"
t=$SECONDS
OUT_A="$RUN_DIR/out-kill"
RECORDS_A="$JOB_SIZE_LONG"
if JOB_A="$(submit -- "$OUT_A" "$RECORDS_A")" && wait_checkpoints "$HOME_DIR" "$JOB_A" 2; then
  # Kill first, look second: on a loaded machine every check before the kill risks the job
  # finishing first. The killed TaskManager's log stays complete on disk.
  t_kill=$SECONDS
  state_at_kill="$(job_state "$HOME_DIR" "$JOB_A")"
  cluster_kill_taskmanager
  echo "kill -9 TaskManager 1 while the job was $state_at_kill"

  backend="$(job_state_backend "$HOME_DIR" "$JOB_A")"
  # Only this job ran on TaskManager 1: its log holds exactly this job's lines.
  expectations="$(e2e_job_falcon_expectations)"
  if [[ -n "$expectations" ]]; then
    # shellcheck disable=SC2086
    lines="$(python3 "$E2E_DIR/lib/check_falcon_lines.py" activation "$(tm_log 1)" \
      --version "$FALCON_VERSION" --native "$HOME_DIR/lib/libfalcon_jni.so" --hash on --range on \
      --slots "$(flink_conf_get "$HOME_DIR" taskmanager.numberOfTaskSlots)" \
      --parallelism "$(flink_conf_get "$HOME_DIR" parallelism.default)" \
      --cache-share "$(flink_conf_get "$HOME_DIR" state.backend.falcon.cache.managed-memory-share 0.1)" \
      --managed-bytes "$TM1_MANAGED" $expectations)"
  else  # a job without expectations: the activation line only
    lines="$(grep -o '\[FALCON\] Falcon .* enabled (native .*' "$(tm_log 1)" | head -n1)"
    want="[FALCON] Falcon $FALCON_VERSION enabled (native $HOME_DIR/lib/libfalcon_jni.so): "
    [[ "$lines" == "$want"* ]] || lines="[FALCON] line check FAILED: activation line '${lines:-none}'"
  fi
  if [[ "$backend" == FalconStateBackend && "$lines" != *FAILED* ]]; then
    pass falcon-activation "$(elapsed "$t")" "$E2E_JOB job on $backend; $lines"
  else
    fail falcon-activation "$(elapsed "$t")" "backend '$backend'; $lines"
  fi

  t=$t_kill
  echo "starting TaskManager 2"
  start_taskmanager 2
  state="$(wait_job_end "$HOME_DIR" "$JOB_A" 150)"
  restored="$(rest_get "$HOME_DIR" "/jobs/$JOB_A/checkpoints" "(j['latest']['restored'] or {}).get('id')")"
  # The checkpoint it had to restore: the last one completed before the restore (nothing
  # triggered before the restore can complete after the kill: every task was on that JVM).
  last_cp="$(rest_get "$HOME_DIR" "/jobs/$JOB_A/checkpoints" "max((c['id'] for c in j['history']
    if c['status'] == 'COMPLETED' and j['latest']['restored']
    and c['trigger_timestamp'] < j['latest']['restored']['restore_timestamp']), default=None)")"
  failures="$(rest_get "$HOME_DIR" "/jobs/$JOB_A/exceptions" "len(j['exceptionHistory']['entries'])")"
  check="$(e2e_job_check "$OUT_A" "$RECORDS_A")"; check_rc=$?
  if [[ "$state_at_kill" == RUNNING && "$state" == FINISHED && -n "$restored" \
        && "$restored" == "$last_cp" && "$check_rc" == 0 ]] \
      && grep -q '\[FALCON\] Falcon .* enabled' "$(tm_log 2)"; then
    pass kill-9-recovery "$(elapsed "$t")" "restored checkpoint $restored after $failures failure(s); $check"
  else
    fail kill-9-recovery "$(elapsed "$t")" "state at kill $state_at_kill, end $state, restored '${restored:-none}' (last completed $last_cp); $check"
  fi
else
  fail falcon-activation "$(elapsed "$t")" "job did not start or checkpoint"
  fail kill-9-recovery 0 "not run"
fi

if [[ "$E2E_SCOPE" == full ]]; then

# savepoint-switch: Falcon -> stock rocksdb -> Falcon through stop-with-savepoint.
t=$SECONDS
OUT_B="$RUN_DIR/out-savepoints"
RECORDS_B="$JOB_SIZE_MEDIUM"
savepoint_leg() {  # savepoint_leg NAME [CLI options]: submits, waits for a checkpoint; sets LEG_JOB
  local name="$1"; shift
  LEG_JOB="$(submit "$@" -- "$OUT_B" "$RECORDS_B")" || { echo "$name: submit failed"; return 1; }
  wait_checkpoints "$HOME_DIR" "$LEG_JOB" 1 || { echo "$name: no checkpoint"; return 1; }
}
leg_backend() {  # leg_backend NAME EXPECTED_BACKEND: the backend LEG_JOB ran on (asked after the stop)
  local backend
  backend="$(job_state_backend "$HOME_DIR" "$LEG_JOB")"
  [[ "$backend" == "$2" ]] || { echo "$1: backend $backend, expected $2"; return 1; }
  echo -n "$1 on $backend; " >&2
}
sp_check() {
  savepoint_leg falcon-1 || return 1
  SP1="$(stop_with_savepoint "$HOME_DIR" "$LEG_JOB")" || { echo "stop-with-savepoint 1 failed"; return 1; }
  leg_backend falcon-1 FalconStateBackend || return 1
  savepoint_leg rocksdb -s "$SP1" -Dstate.backend=rocksdb || return 1
  SP2="$(stop_with_savepoint "$HOME_DIR" "$LEG_JOB")" || { echo "stop-with-savepoint 2 failed"; return 1; }
  leg_backend rocksdb EmbeddedRocksDBStateBackend || return 1
  savepoint_leg falcon-2 -s "$SP2" || return 1
  local state
  state="$(wait_job_end "$HOME_DIR" "$LEG_JOB" 120)"
  leg_backend falcon-2 FalconStateBackend || return 1
  [[ "$state" == FINISHED ]] || { echo "last leg ended $state"; return 1; }
  e2e_job_check "$OUT_B" "$RECORDS_B"
}
if msg="$(sp_check 2>&1)"; then
  pass savepoint-switch "$(elapsed "$t")" "$msg"
else
  fail savepoint-switch "$(elapsed "$t")" "$(tail -n3 <<<"$msg" | tr '\n' ' ')"
fi

# Short variants: a job that fails once by itself (injected, after a checkpoint) and restarts
# inside the same TaskManager, under Falcon (with both tunings on).
use_job "$E2E_VARIANT_JOB"
VARIANT_RECORDS="$JOB_SIZE_SHORT"
variant() {  # variant NAME [CLI options] -- [extra job args]
  local name="$1"; shift
  local -a cli=()
  while (( $# )) && [[ "$1" != "--" ]]; do cli+=("$1"); shift; done
  (( $# )) && shift
  local out="$RUN_DIR/out-$name" state restored failures
  VARIANT_JOB="$(submit "${cli[@]}" -- "$out" "$VARIANT_RECORDS" --fail-after 4000 "$@")" \
    || { echo "submit failed"; return 1; }
  state="$(wait_job_end "$HOME_DIR" "$VARIANT_JOB" 90)"
  restored="$(rest_get "$HOME_DIR" "/jobs/$VARIANT_JOB/checkpoints" "(j['latest']['restored'] or {}).get('id')")"
  failures="$(rest_get "$HOME_DIR" "/jobs/$VARIANT_JOB/exceptions" "len(j['exceptionHistory']['entries'])")"
  [[ "$state" == FINISHED && -n "$restored" ]] \
    || { echo "state $state, restored '${restored:-none}'"; return 1; }
  if [[ "$name" == unaligned ]]; then
    [[ "$(rest_get "$HOME_DIR" "/jobs/$VARIANT_JOB/checkpoints/config" "j['unaligned_checkpoints']")" == true ]] \
      || { echo "checkpoints were not unaligned"; return 1; }
    echo -n "unaligned checkpoints; "
  fi
  echo -n "restored checkpoint $restored after $failures injected failure(s); "
  e2e_job_check "$out" "$VARIANT_RECORDS"
}
# Flink's restore line: "Starting to restore from state handle: ..." up to 1.19, "... from state
# handle ..." in 1.20.
local_restores() { grep -c -E 'from state handle:? IncrementalLocalKeyedStateHandle' "$(tm_log 2)"; }

t=$SECONDS
if msg="$(variant unaligned -Dexecution.checkpointing.unaligned=true 2>&1)"; then
  pass variant-unaligned "$(elapsed "$t")" "$msg"
else
  fail variant-unaligned "$(elapsed "$t")" "$msg"
fi

t=$SECONDS
local_before="$(local_restores)"
if msg="$(variant local-recovery 2>&1)" && (( $(local_restores) > local_before )); then
  pass variant-local-recovery "$(elapsed "$t")" "restored from TaskManager-local state; $msg"
else
  fail variant-local-recovery "$(elapsed "$t")" "$msg; local restores $local_before -> $(local_restores)"
fi

# A cache of 50 entries for the job's keys: every cached state's hit ratio drops under the
# threshold, so states leave the cache (and come back for trials) while the job fails and restores.
switch_lines() { grep -c '\[FALCON\] <.*> cache off: ' "$(tm_log 2)"; }
t=$SECONDS
switch_before="$(switch_lines)"
if msg="$(variant self-switching -Dstate.backend.falcon.cache.size-per-subtask=1mb \
    -Dstate.backend.falcon.cache.entries-per-subtask=50 \
    -Dstate.backend.falcon.cache.switch.window=1000 \
    -Dstate.backend.falcon.cache.switch.retry-after=5000 2>&1)" \
    && (( $(switch_lines) > switch_before )); then
  pass variant-self-switching "$(elapsed "$t")" "$(( $(switch_lines) - switch_before )) cache-off line(s); $msg"
else
  fail variant-self-switching "$(elapsed "$t")" "$msg; cache-off lines $switch_before -> $(switch_lines)"
fi

use_job "$TIMER_JOB"
VARIANT_RECORDS="$JOB_SIZE_SHORT"
heap_queues() { e2e_job_heap_timer_evidence "$(tm_log 2)"; }
t=$SECONDS
heap_before="$(heap_queues)"
if msg="$(variant heap-timers -Dstate.backend.rocksdb.timer-service.factory=HEAP -- --timers 2>&1)" \
    && (( $(heap_queues) > heap_before )); then
  pass variant-heap-timers "$(elapsed "$t")" "timers in heap queues; $msg"
else
  fail variant-heap-timers "$(elapsed "$t")" "$msg; heap timer evidence $heap_before -> $(heap_queues)"
fi

# rescale: what users do when they outgrow one TaskManager. A second TaskManager joins (two of two
# slots each); the keyed counting job runs at parallelism 2, is stopped with a savepoint and
# resumed at 4, stopped again and resumed at 1, then cancelled with its last (incremental)
# checkpoint retained and resumed from that at 2 to the end. Every count exactly once, and each
# leg's [FALCON] subtask lines name its parallelism: subtasks (1/4)..(4/4) over both TaskManagers.
use_job keyed-count
subtask_indexes() {  # subtask_indexes P: the distinct i of "(i/P)" in the subtask budget lines
  grep -h -o "\[FALCON\] subtask .* ([0-9]*/$1)#[0-9]*: slot has" "$(tm_log 2)" "$(tm_log 4)" \
    2>/dev/null | grep -o "([0-9]*/$1)" | sort -u | tr -d '()' | cut -d/ -f1 | sort -n | tr '\n' ' '
}
rescale_leg() {  # rescale_leg NAME P [CLI options]: submits at P, waits for 2 checkpoints
  local name="$1" p="$2"; shift 2
  LEG_JOB="$(submit -p "$p" "$@" -- "$OUT_R" "$RECORDS_R")" || { echo "$name: submit failed"; return 1; }
  wait_checkpoints "$HOME_DIR" "$LEG_JOB" 2 || { echo "$name: no checkpoints"; return 1; }
}
rescale_check() {
  rescale_leg p2 2 || return 1
  local sp1 sp2 retained state
  sp1="$(stop_with_savepoint "$HOME_DIR" "$LEG_JOB")" || { echo "savepoint at p=2 failed"; return 1; }
  rescale_leg p4 4 -s "$sp1" || return 1
  sp2="$(stop_with_savepoint "$HOME_DIR" "$LEG_JOB")" || { echo "savepoint at p=4 failed"; return 1; }
  [[ "$(subtask_indexes 4)" == "1 2 3 4 " ]] \
    || { echo "subtask lines at p=4: $(subtask_indexes 4)"; return 1; }
  rescale_leg p1 1 -s "$sp2" \
    -Dexecution.checkpointing.externalized-checkpoint-retention=RETAIN_ON_CANCELLATION || return 1
  [[ "$(subtask_indexes 1)" == "1 " ]] || { echo "no subtask line at p=1"; return 1; }
  job_cancel "$HOME_DIR" "$LEG_JOB" || { echo "cancel at p=1 failed"; return 1; }
  # Asked after the cancel: a checkpoint completed before it is subsumed by a later one.
  retained="$(latest_checkpoint_path "$HOME_DIR" "$LEG_JOB")"
  [[ -n "$retained" && "$retained" != None ]] || { echo "no retained checkpoint"; return 1; }
  LEG_JOB="$(submit -p 2 -s "$retained" -- "$OUT_R" "$RECORDS_R")" || { echo "resume failed"; return 1; }
  state="$(wait_job_end "$HOME_DIR" "$LEG_JOB" 120)"
  [[ "$state" == FINISHED ]] || { echo "last leg ended $state"; return 1; }
  [[ "$(job_state_backend "$HOME_DIR" "$LEG_JOB")" == FalconStateBackend ]] \
    || { echo "last leg not on Falcon"; return 1; }
  echo -n "p 2 -> 4 -> 1 through savepoints, -> 2 through retained checkpoint $(basename "$retained"); "
  e2e_job_check "$OUT_R" "$RECORDS_R"
}
t=$SECONDS
OUT_R="$RUN_DIR/out-rescale"
RECORDS_R="$JOB_SIZE_LONG"
# Started here, not in the check's subshell, so that cluster_stop knows the process.
if ! start_taskmanager 4; then
  fail rescale "$(elapsed "$t")" "TaskManager 4 did not start"
elif msg="$(rescale_check 2>&1)"; then
  pass rescale "$(elapsed "$t")" "$msg"
else
  fail rescale "$(elapsed "$t")" "$(tail -n3 <<<"$msg" | tr '\n' ' ')"
fi

echo "[FALCON] lines in the TaskManager logs of cluster 1:"
grep -h -o '\[FALCON\].*' "$(tm_log 1)" "$(tm_log 2)" | sort | uniq -c | sed 's/^/  /'

# tm-memory: the highest RSS sampled for any TaskManager of cluster 1.
kill "$SAMPLER_PID" 2>/dev/null; SAMPLER_PID=""
limit="$(to_bytes "$PROCESS_SIZE")"
max_rss="$(awk 'BEGIN {m = 0} $2 > m {m = $2} END {print m}' "$RUN_DIR/rss.log" 2>/dev/null)"
samples="$(wc -l <"$RUN_DIR/rss.log" 2>/dev/null || echo 0)"
if (( samples > 10 && max_rss > 0 && max_rss < limit )); then
  pass tm-memory 0 "max TaskManager RSS $((max_rss >> 20)) MiB < taskmanager.memory.process.size $PROCESS_SIZE ($samples samples)"
else
  fail tm-memory 0 "max RSS $((max_rss >> 20)) MiB, limit $PROCESS_SIZE, $samples samples"
fi

# -- cluster 2: the jar without its native library -----------------------------------------------

log "cluster 2: libfalcon_jni.so removed from lib/"
cluster_stop
rm "$HOME_DIR/lib/libfalcon_jni.so"
t=$SECONDS
start_cluster 3 || { fail cluster-start "$(elapsed "$t")" "cluster 2 did not start"; echo "$PASSED passed, $FAILED failed"; exit 1; }
echo "cluster 2 up in $(elapsed "$t") s"

use_job "$E2E_JOB"
t=$SECONDS
OUT_C="$RUN_DIR/out-no-native"
RECORDS_C="$JOB_SIZE_SHORT"
if JOB_C="$(submit -- "$OUT_C" "$RECORDS_C")"; then
  state="$(wait_job_end "$HOME_DIR" "$JOB_C" 90)"
  warn="$(grep -o '\[FALCON\] WARN native library not loaded (tried: .*); running as the stock RocksDB backend' "$(tm_log 3)" | head -n1)"
  check="$(e2e_job_check "$OUT_C" "$RECORDS_C")"; check_rc=$?
  if [[ "$state" == FINISHED && "$warn" == *libfalcon_jni.so* && "$check_rc" == 0 ]] \
      && ! grep -q '\[FALCON\] Falcon .* enabled' "$(tm_log 3)"; then
    pass missing-native "$(elapsed "$t")" "$warn; $check"
  else
    fail missing-native "$(elapsed "$t")" "state $state, WARN line '${warn:-none}'; $check"
  fi
else
  fail missing-native "$(elapsed "$t")" "submit failed"
fi

# Any job fails alike (at its first keyed backend): the variant job is the quicker one to submit.
use_job "$E2E_VARIANT_JOB"
t=$SECONDS
if JOB_D="$(submit -Dstate.backend.falcon.native.required=true -Drestart-strategy=none \
    -- "$RUN_DIR/out-required" "$JOB_SIZE_SHORT")"; then
  state="$(wait_job_end "$HOME_DIR" "$JOB_D" 90)"
  root="$(rest_get "$HOME_DIR" "/jobs/$JOB_D/exceptions" \
    "(j['exceptionHistory']['entries'] or [{}])[0].get('stacktrace') or j.get('root-exception')")"
  reason="$(grep -m1 -o '\[FALCON\] native library not loaded (tried: .*libfalcon_jni\.so.*); state\.backend\.falcon\.native\.required is true, so no keyed state backend is created' <<<"$root" | cut -c1-240)"
  if [[ "$state" == FAILED && -n "$reason" ]]; then
    pass native-required "$(elapsed "$t")" "job FAILED: $reason..."
  else
    fail native-required "$(elapsed "$t")" "state $state; root cause: $(head -c 300 <<<"$root")"
  fi
else
  fail native-required "$(elapsed "$t")" "submit failed"
fi

fi  # E2E_SCOPE == full

cluster_stop

# falcon-log-format: every [FALCON] line any TaskManager logged (cluster 1: the jobs, the kill,
# the restores, the backend switches, the variants; cluster 2: the WARN line) has an exact format.
if msg="$(python3 "$E2E_DIR/lib/check_falcon_lines.py" format "$HOME_DIR"/log/flink-taskexecutor-*.log)"; then
  pass falcon-log-format 0 "$msg"
else
  fail falcon-log-format 0 "$msg"
fi

echo
echo "e2e took $(elapsed "$t0") s (logs, outputs: $RUN_DIR)"
echo "$PASSED passed, $FAILED failed"
(( FAILED == 0 ))
exit
}
