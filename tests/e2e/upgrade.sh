#!/usr/bin/env bash
# The upgrade path on real standalone clusters (Flink's savepoint compatibility, kept through
# Falcon): the keyed counting job runs on Falcon with Flink FROM (default 1.16.3, Falcon's bundle
# for that minor), stops with a savepoint, and the same job jar resumes from that savepoint on
# Flink TO (default 1.20.3) with Falcon's bundle for that minor, and again from the same savepoint
# on TO's stock RocksDB backend. Both runs finish with every count exactly once (the same result).
# Prints PASS/FAIL per scenario and "N passed, M failed"; bounded at E2E_TIMEOUT (default 540 s).
#
# Inputs (environment): UPGRADE_FROM, UPGRADE_TO (Flink versions), FALCON_NATIVE (default
# build/dev/native/libfalcon_jni.so), E2E_BUILD (default build/e2e).
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

if [[ -z "${E2E_UNDER_TIMEOUT:-}" ]]; then
  export E2E_UNDER_TIMEOUT=1
  exec timeout -k 30 "${E2E_TIMEOUT:-540}" bash "${BASH_SOURCE[0]}" "$@"
fi

source "$FALCON_ROOT/tests/e2e/lib/flink.sh"

{
set +e
set -o pipefail
detect_java_home

FROM="${UPGRADE_FROM:-1.16.3}"
TO="${UPGRADE_TO:-1.20.3}"
RUN_DIR="$E2E_BUILD/upgrade"
PASSED=0
FAILED=0
trap cluster_stop EXIT
trap 'echo "upgrade: interrupted (timeout?)" >&2; exit 143' TERM INT
pass() { PASSED=$((PASSED + 1)); printf 'PASS %-20s (%ss) %s\n' "$1" "$2" "${3:-}"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL %-20s (%ss) %s\n' "$1" "$2" "$3"; }
elapsed() { echo $((SECONDS - $1)); }
setup_failed() { printf 'FAIL %-20s %s\n' setup "$1"; echo "0 passed, 1 failed"; exit 1; }

# Flink VERSION assembled, installed into HOME, with Falcon's bundle for its minor.
install_flink_with_falcon() {
  local version="$1" home="$2" minor="${1%.*}"
  FLINK_VERSION="$version"
  FLINK_DIST="$E2E_BUILD/flink-$version"
  flink_assemble || return 1
  flink_install "$home"
  "$FALCON_ROOT/scripts/release.sh" --flink "$minor" --native-dir "$RUN_DIR/native" >/dev/null \
    || return 1
  falcon_install_bundle "$home" "$FALCON_ROOT/dist/falcon-$FALCON_VERSION-flink-$minor.tar.gz"
}

t0=$SECONDS
rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR/native/linux-$(uname -m)"
FALCON_NATIVE="${FALCON_NATIVE:-$(native_library)}"
[[ -f "$FALCON_NATIVE" ]] || setup_failed "no $FALCON_NATIVE (build the dev preset first)"
cp "$FALCON_NATIVE" "$RUN_DIR/native/linux-$(uname -m)/"
OLD="$RUN_DIR/flink-$FROM"
NEW="$RUN_DIR/flink-$TO"
install_flink_with_falcon "$FROM" "$OLD" || setup_failed "cannot install Flink $FROM with Falcon"
# The job jar, compiled against the old Flink: the user's jar does not change in an upgrade.
JOB_JAR="$RUN_DIR/job/keyed-count.jar"
source "$FALCON_ROOT/tests/e2e/jobs/keyed-count.sh"
e2e_job_build || setup_failed "cannot build the job"
RECORDS="$JOB_SIZE_LONG"
echo "setup took $(elapsed "$t0") s"

# -- the old cluster: run on Falcon, stop with a savepoint ---------------------------------------
t=$SECONDS
OUT="$RUN_DIR/out-falcon"
cluster_start_jobmanager "$OLD" && cluster_start_taskmanager "$OLD" 1 \
  || setup_failed "the Flink $FROM cluster did not start"
savepoint=""
if job="$(flink_submit "$OLD" "$JOB_JAR" -- $(e2e_job_args "$OUT" "$RECORDS"))" \
    && wait_checkpoints "$OLD" "$job" 2 \
    && [[ "$(job_state_backend "$OLD" "$job")" == FalconStateBackend ]] \
    && savepoint="$(stop_with_savepoint "$OLD" "$job")"; then
  pass savepoint-on-old "$(elapsed "$t")" "Flink $FROM on Falcon: savepoint $(basename "$savepoint")"
else
  fail savepoint-on-old "$(elapsed "$t")" "no savepoint from Flink $FROM on Falcon"
fi
cluster_stop

# -- the new cluster: the same jar from that savepoint, on Falcon and on stock RocksDB ------------
if [[ -n "$savepoint" ]]; then
  install_flink_with_falcon "$TO" "$NEW" || setup_failed "cannot install Flink $TO with Falcon"
  # The file sink's state names its output directory, so both resumes write into $OUT: the
  # committed output at the savepoint is kept aside and put back before the second one.
  cp -r "$OUT" "$RUN_DIR/out-at-savepoint"
  cluster_start_jobmanager "$NEW" && cluster_start_taskmanager "$NEW" 2 \
    || setup_failed "the Flink $TO cluster did not start"
  resume() {  # resume NAME OUT EXPECTED_BACKEND [CLI options]
    local name="$1" out="$2" expected="$3" job state backend t=$SECONDS; shift 3
    if job="$(flink_submit "$NEW" "$JOB_JAR" -s "$savepoint" "$@" -- $(e2e_job_args "$out" "$RECORDS"))"; then
      state="$(wait_job_end "$NEW" "$job" 150)"
      backend="$(job_state_backend "$NEW" "$job")"
      if [[ "$state" == FINISHED && "$backend" == "$expected" ]] \
          && check="$(e2e_job_check "$out" "$RECORDS")"; then
        pass "$name" "$(elapsed "$t")" "Flink $TO on $backend from the $FROM savepoint; $check"
      else
        fail "$name" "$(elapsed "$t")" "state $state, backend $backend; ${check:-}"
      fi
    else
      fail "$name" "$(elapsed "$t")" "submit from the savepoint failed"
    fi
  }
  resume resume-on-falcon "$OUT" FalconStateBackend
  mv "$OUT" "$RUN_DIR/out-falcon-resumed"
  cp -r "$RUN_DIR/out-at-savepoint" "$OUT"
  resume resume-on-stock "$OUT" EmbeddedRocksDBStateBackend -Dstate.backend=rocksdb
  grep -h -o '\[FALCON\] Falcon .* enabled .*' "$NEW"/log/flink-taskexecutor-*.log | head -n1
  cluster_stop
else
  fail resume-on-falcon 0 "not run"
  fail resume-on-stock 0 "not run"
fi

echo "upgrade test took $(elapsed "$t0") s (logs, outputs: $RUN_DIR)"
echo "$PASSED passed, $FAILED failed"
(( FAILED == 0 ))
exit
}
