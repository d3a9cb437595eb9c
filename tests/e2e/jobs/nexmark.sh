# The e2e hooks for a Nexmark query job (java/falcon-nexmark: NexmarkClusterJob submitted with
# bin/flink run, NexmarkResultCheck for the exact result), sourced by tests/e2e/run.sh. The hook
# contract is described in jobs/keyed-count.sh.
#
# The job: Nexmark q4 (average closing price per category: a regular join keeping both inputs in
# MapState, a GROUP BY per auction and one per category keeping ValueState accumulators) over the
# deterministic bounded generator, its changelog into the exactly-once file sink. The check
# materializes the committed changelog (per-subtask sequence numbers must be gap-free and
# unique) and compares it with q4 computed straight from the generator (Q4Oracle); a lost or
# replayed record changes a maximum or an average, or breaks a sequence.

NEXMARK_QUERY=q4
NEXMARK_RATE=2500  # events per second for the whole source, so kill -9 and savepoints land mid-run
JOB_SIZE_LONG=45000
# The savepoint legs get the most events: the middle leg must still run when its first checkpoint
# completes and the stop-with-savepoint arrives, after restoring from the first savepoint.
JOB_SIZE_MEDIUM=60000
JOB_SIZE_SHORT=15000
# The job has no timers (q4 is a regular join and two unbounded aggregations): run.sh runs the
# heap-timer variant on keyed-count.
JOB_HAS_TIMERS=false

# The job's keyed state as the [FALCON] lines must show it (tests/e2e/lib/check_falcon_lines.py),
# per parallel instance: four keyed operators (the join, both GROUP BYs and the result sequencer
# keyed by row content); the join's two inputs are MapStates (no unique key on either side),
# cached whole map by map, and each GROUP BY keeps one ValueState accumulator, also cached.
e2e_job_falcon_expectations() {
  echo --keyed-operators 4 \
    --cached accState=2 --cached-maps left-records=1,right-records=1 \
    --hash-tuned accState=22,accState=30 --range-tuned left-records=22,right-records=22
}

e2e_job_build() {
  local out src="$FALCON_ROOT/java/falcon-nexmark/src/main"
  out="$(dirname "$JOB_JAR")"
  rm -rf "$out" && mkdir -p "$out/classes"
  # The job classes only (not the benchmark harness); Flink and Falcon come from lib/.
  local messages
  messages="$(javac -nowarn --release 8 -cp "$(flink_classpath "$FLINK_DIST")" -d "$out/classes" \
    $(find "$src/java" -name '*.java' -not -path '*/bench/*') 2>&1)" \
    || { echo "$messages" >&2; return 1; }
  cp -r "$src/resources/META-INF" "$src/resources/nexmark" "$out/classes/"
  jar --create --file "$JOB_JAR" --main-class io.falconstate.nexmark.NexmarkClusterJob \
    -C "$out/classes" .
}

# The generator and query options; the check rebuilds the generator from the same arguments.
_nexmark_args() {
  echo --query "$NEXMARK_QUERY" --output "$1" --events "$2" --seed 42 --event-time-rate 1000 \
    --source out-of-order.group-size=50
}

e2e_job_args() {
  local output="$1" size="$2"; shift 2
  local -a extra=()
  while (( $# )); do
    case "$1" in
      --fail-after) extra+=(--fail-after "$2"); shift ;;
      --timers) echo "nexmark job: no timers" >&2; return 1 ;;
    esac
    shift
  done
  echo $(_nexmark_args "$output" "$size") --rate-limit "$NEXMARK_RATE" \
    --checkpoint-interval-ms 1000 "${extra[@]}"
}

e2e_job_check() {
  # shellcheck disable=SC2046
  java -cp "$JOB_JAR:$(flink_classpath "$FLINK_DIST")" \
    -Dlog4j.configurationFile="file:$FLINK_DIST/conf/log4j-console.properties" \
    io.falconstate.nexmark.NexmarkResultCheck $(_nexmark_args "$1" "$2") 2>"$1.check.log"
}

e2e_job_heap_timer_evidence() {
  echo 0
}
