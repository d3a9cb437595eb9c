#!/usr/bin/env bash
# The Nexmark suite matrix (docs/benchmarks.md, "Nexmark"): every bundled query
# (NexmarkQueries.ALL: the stateful suite and the stateless queries) at 10 M events with
# mini-batch off, and the queries whose plan mini-batch changes with it on; p = 1, stock RocksDB
# vs Falcon vs heap interleaved, 3 repetitions. Then q4, q9 and q20 at 50 M events, where the
# state is far larger than the cache and RocksDB reads its SST files (q4 with mini-batch on too):
# stock vs Falcon, one run each, stopped after 20 minutes (stock RocksDB needs far longer for
# some of them here; a stopped run reports its rate until then, apart from the medians).
# About a night on a 2-core machine; it prints what it took.
#
#   bench/nexmark/suite.sh                       # the whole matrix into docs/benchmarks/suite-*
#   bench/nexmark/suite.sh --reps 1 --no-large   # one repetition, no 50 M part
#
# Options: --reps N (3, the 10 M part), --events N (10000000), --large-events N (50000000),
# --no-large, --output DIR (docs/benchmarks); anything else goes to every run.sh call.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

reps=3
events=10000000
large_events=50000000
large=1
out="$FALCON_ROOT/docs/benchmarks"
extra=()
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --events) events="$2"; shift 2 ;;
    --large-events) large_events="$2"; shift 2 ;;
    --no-large) large=0; shift ;;
    --output) out="$2"; shift 2 ;;
    --help|-h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
      exit 0 ;;
    *) extra+=("$1"); shift ;;
  esac
done

start=$(date +%s)
run="$FALCON_ROOT/bench/nexmark/run.sh"
# The queries mini-batch changes: the group aggregates, and q3 (stock at 10 M events: 327k
# events/s per core with it on, 525k off). The others would repeat their mini-batch-off cells.
mini_batch_queries=q3,q4,q15,q15_bidder,q16,q17,q18
# 4 GB of heap holds q20's join state on the heap backend at 10 M events; q7's and q9's do not fit
# (those heap runs fail and the report marks them), and Falcon and stock need far less.
common=(--reps "$reps" --parallelism 1 --no-charts)
"$run" --events "$events" --mini-batch off --heap 4g --run-timeout-s 1800 "${common[@]}" \
  --output "$out/suite-10m" ${extra[@]+"${extra[@]}"}
"$run" --no-build --queries "$mini_batch_queries" --events "$events" --mini-batch on --heap 4g \
  --run-timeout-s 1800 "${common[@]}" --output "$out/suite-10m-on" ${extra[@]+"${extra[@]}"}
if ((large)); then
  large_common=(--events "$large_events" --reps 1 --backends rocksdb,falcon --heap 8g
    --run-timeout-s 1200 --parallelism 1 --no-charts)
  "$run" --no-build --queries q4,q9,q20 --mini-batch off "${large_common[@]}" \
    --output "$out/suite-50m" ${extra[@]+"${extra[@]}"}
  "$run" --no-build --queries q4 --mini-batch on "${large_common[@]}" \
    --output "$out/suite-50m-on" ${extra[@]+"${extra[@]}"}
fi
python="$FALCON_VENV/bin/python"
[[ -x "$python" ]] || python=python3
"$python" "$FALCON_ROOT/bench/nexmark/charts.py" "$out/suite-10m" "$out/suite-10m-on"
log "suite took $(( ($(date +%s) - start) / 60 )) min"
