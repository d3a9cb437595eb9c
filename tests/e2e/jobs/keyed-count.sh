# The e2e job hooks for tests/e2e/job (KeyedCountJob), sourced by tests/e2e/run.sh.
#
# A job for run.sh is a file tests/e2e/jobs/<name>.sh (select it with E2E_JOB=<name>) defining:
#   JOB_SIZE_LONG, JOB_SIZE_MEDIUM, JOB_SIZE_SHORT
#                        input sizes: the kill -9 run (long enough to be killed after two
#                        checkpoints), the savepoint legs, the short variants
#   e2e_job_build        builds "$JOB_JAR" (job classes only; Flink and Falcon come from lib/)
#   e2e_job_args OUTPUT SIZE [--fail-after N] [--timers]
#                        prints the program arguments: write the exactly-once result to
#                        OUTPUT; --fail-after: fail once by itself (first attempt only) after a
#                        checkpoint completed; --timers: use timers (the heap-timer variant)
#   e2e_job_check OUTPUT SIZE
#                        exit 0 when the committed result in OUTPUT is exactly the result of a
#                        failure-free run over SIZE, printing one summary line either way
#   e2e_job_heap_timer_evidence LOG
#                        prints how many lines in the TaskManager LOG show that the job's timers
#                        live in heap priority queues (the heap-timer variant compares counts)
# and optionally:
#   JOB_HAS_TIMERS=false the job registers no timers (run.sh then runs the heap-timer variant on
#                        keyed-count)
#   e2e_job_falcon_expectations
#                        prints the job's options of tests/e2e/lib/check_falcon_lines.py activation
#                        (keyed operators, cached and tuned states); without it the
#                        falcon-activation scenario checks the activation line only
# run.sh selects jobs with E2E_JOB (main scenarios, default nexmark: jobs/nexmark.sh) and
# E2E_VARIANT_JOB (the short variants, default this job).

JOB_KEYS=500
JOB_RATE=2500  # records per second per source subtask
JOB_SIZE_LONG=120000
JOB_SIZE_MEDIUM=60000
JOB_SIZE_SHORT=30000

e2e_job_build() {
  local out
  out="$(dirname "$JOB_JAR")"
  rm -rf "$out" && mkdir -p "$out/classes"
  local messages
  messages="$(javac -nowarn --release 8 -cp "$(flink_classpath "$FLINK_DIST")" -d "$out/classes" \
    $(find "$FALCON_ROOT/tests/e2e/job/src" -name '*.java') 2>&1)" \
    || { echo "$messages" >&2; return 1; }
  jar --create --file "$JOB_JAR" --main-class io.falconstate.e2e.KeyedCountJob -C "$out/classes" .
}

e2e_job_args() {
  local output="$1" size="$2"; shift 2
  local -a extra=()
  while (( $# )); do
    case "$1" in
      --fail-after) extra+=(--fail-after "$2"); shift ;;
      --timers) extra+=(--timers true) ;;
    esac
    shift
  done
  echo --output "$output" --records "$size" --keys "$JOB_KEYS" --rate "$JOB_RATE" \
    --checkpoint-interval 1000 "${extra[@]}"
}

e2e_job_check() {
  python3 "$FALCON_ROOT/tests/e2e/lib/check_counts.py" "$1" "$2" "$JOB_KEYS"
}

e2e_job_heap_timer_evidence() {
  grep -c 'e2e: processing-time timer queue HeapPriorityQueueSet' "$1"
}
