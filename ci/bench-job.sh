#!/usr/bin/env bash
# One cell of the comparative CI matrix (ci/github-actions.yml calls it; it runs anywhere):
#   ci/bench-job.sh RUNNER_CLASS BACKEND SIZE_GROUP [BUILD_DIR]
# measures every plugin of BACKEND ("omp", "cuda"...) at the sizes of SIZE_GROUP into
# ci-results/<class>-<backend>-<group>.json, then compares it with the stored baseline of the
# same runner class, ci/baselines/<class>/<backend>-<group>.json: exit 1 on a regression (a
# significant slowdown beyond 5%, or a failed verification). Without a baseline it says so
# and passes; GPUBENCH_UPDATE_BASELINE=1 stores the new results as the baseline.
# A cell's sweep can be sharded over jobs (docs/scale-out.md): GPUBENCH_SHARD=I/N
# measures only shard I of N (runner --shard) into <class>-<backend>-<group>-shard-I.json and
# compares nothing; then GPUBENCH_MERGE=1, instead of measuring, joins every such file into
# <class>-<backend>-<group>.json (runner merge) and compares that: exit 1 also when a planned
# entry is missing (a shard's job failed), after comparing what is there (stored as no baseline).
# GPUBENCH_CI_RESULTS and GPUBENCH_CI_BASELINES move the two folders (the test does).
# The cell's results (measured, or merged) are then added to a history database
# (docs/history.md; GPUBENCH_HISTORY_DB, default ci-history/history.sqlite) as the commit
# GPUBENCH_COMMIT (else git's HEAD, else the file's build revision); the job fails (exit 1)
# when, there, the newest commits of a series form a slower step (runner history regressions,
# steps of more than GPUBENCH_HISTORY_THRESHOLD, default 0.05, that began within the newest
# GPUBENCH_HISTORY_WITHIN runs, default 5: an accepted slowdown stops failing the job after
# that many runs), and writes <results folder>/report.html, the results with that history.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
  echo "usage: ci/bench-job.sh RUNNER_CLASS BACKEND SIZE_GROUP [BUILD_DIR]" >&2
  exit 2
fi
class=$1 backend=$2 group=$3 build_dir=${4:-build}
case $group in
  small) sizes="100,1000" ;;
  medium) sizes="1e4,1e5" ;;
  large) sizes="1e6,1e7" ;;
  *) echo "ci/bench-job.sh: unknown size group '$group' (small, medium, large)" >&2; exit 2 ;;
esac
results_dir=${GPUBENCH_CI_RESULTS:-ci-results}
baselines_dir=${GPUBENCH_CI_BASELINES:-ci/baselines}
mkdir -p "$results_dir"
results="$results_dir/$class-$backend-$group.json"
runner="$build_dir/bin/runner"
status=0
if [ "${GPUBENCH_MERGE:-0}" = 1 ]; then
  rm -f "$results"
  merge_log="$results_dir/merge.log"
  "$runner" merge "${results%.json}"-shard-*.json --output "$results" >"$merge_log" || status=$?
  cat "$merge_log"
  # Merge's status is the sweep's: 1 a failed entry (compare reports it), 3 skipped entries
  # (sizes outside a plugin's range) or missing ones (listed: compared all the same, and
  # failed below). Anything else, or no merged file, is a failed merge.
  if { [ "$status" -ne 0 ] && [ "$status" -ne 1 ] && [ "$status" -ne 3 ]; } || [ ! -f "$results" ]; then
    echo "bench-job: merging the shards failed (exit status $status)" >&2
    exit 1
  fi
  incomplete=0
  if grep -q '^missing: ' "$merge_log"; then incomplete=1; fi
  rm -f "$merge_log"
else
  output=$results shard=()
  if [ -n "${GPUBENCH_SHARD:-}" ]; then
    output="${results%.json}-shard-${GPUBENCH_SHARD%%/*}.json" shard=(--shard "$GPUBENCH_SHARD")
  fi
  "$runner" --quiet --plugin "*_$backend" --sizes "$sizes" --max-time 2 "${shard[@]}" \
    --output "$output" || status=$?
  # 3: some sizes lie outside some plugins' ranges, recorded as skipped: not a failure here
  # (a shard exits 0 then).
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    echo "bench-job: the sweep failed (exit status $status); see $output" >&2
    exit 1
  fi
  if [ -n "${GPUBENCH_SHARD:-}" ]; then
    echo "bench-job: shard $GPUBENCH_SHARD in $output; GPUBENCH_MERGE=1 merges the shards and compares"
    exit 0
  fi
  incomplete=0
fi
baseline="$baselines_dir/$class/$backend-$group.json"
if [ "${GPUBENCH_UPDATE_BASELINE:-0}" = 1 ] && [ "$incomplete" -eq 0 ]; then
  mkdir -p "$(dirname "$baseline")"
  cp "$results" "$baseline"
  echo "bench-job: $baseline updated"
elif [ -f "$baseline" ]; then
  compared=0
  "$runner" compare "$baseline" "$results" --threshold 0.05 || compared=$?
  # 2: bad input, as before; 1 (slower) fails the job below, after the history has the run.
  [ "$compared" -ne 2 ] || exit 2
  [ "$compared" -eq 0 ] || failed="the comparison with $baseline found a regression"
else
  echo "bench-job: no baseline $baseline yet (GPUBENCH_UPDATE_BASELINE=1 stores one); not compared"
fi

# The history: this run added as its commit, then the trend of every series checked.
history_db=${GPUBENCH_HISTORY_DB:-ci-history/history.sqlite}
commit=${GPUBENCH_COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}
"$runner" history add "$results" --db "$history_db" ${commit:+--commit "$commit"}
regressions=0
"$runner" history regressions --db "$history_db" --threshold "${GPUBENCH_HISTORY_THRESHOLD:-0.05}" \
  --within "${GPUBENCH_HISTORY_WITHIN:-5}" || regressions=$?
[ "$regressions" -ne 2 ] || exit 2
[ "$regressions" -eq 0 ] || failed="${failed:+$failed; }the history's newest commits are slower (above)"

# The report, with the history's trends, next to the results.
report="$results_dir/report.html"
if "$runner" report "$results" --format html --history "$history_db" --output "$report" 2>"$report.log"; then
  echo "bench-job: report with the history in $report"
elif grep -q "plotly.js" "$report.log"; then
  # Missing plotly.js (python3-plotly) costs the page, not the job: the verdicts above stand.
  echo "bench-job: warning: no $report: $(cat "$report.log")" >&2
else
  cat "$report.log" >&2
  echo "bench-job: the HTML report failed" >&2
  exit 1
fi
rm -f "$report.log"

if [ "$incomplete" -ne 0 ]; then
  echo "bench-job: some planned entries are missing from $results (did a shard's job fail?); no baseline stored" >&2
  exit 1
fi
if [ -n "${failed:-}" ]; then
  echo "bench-job: failed: $failed" >&2
  exit 1
fi
