#!/usr/bin/env bash
# One cell of the comparative CI matrix (ci/github-actions.yml calls it; it runs anywhere):
#   ci/bench-job.sh RUNNER_CLASS BACKEND SIZE_GROUP [BUILD_DIR]
# measures every plugin of BACKEND ("omp", "cuda"...) at the sizes of SIZE_GROUP into
# ci-results/<class>-<backend>-<group>.json, then compares it with the stored baseline of the
# same runner class, ci/baselines/<class>/<backend>-<group>.json: exit 1 on a regression (a
# significant slowdown beyond 5%, or a failed verification). Without a baseline it says so
# and passes; GPUBENCH_UPDATE_BASELINE=1 stores the new results as the baseline.
# A cell's sweep can be sharded over jobs (README, "Sharded sweeps"): GPUBENCH_SHARD=I/N
# measures only shard I of N (runner --shard) into <class>-<backend>-<group>-shard-I.json and
# compares nothing; then GPUBENCH_MERGE=1, instead of measuring, joins every such file into
# <class>-<backend>-<group>.json (runner merge) and compares that: exit 1 also when a planned
# entry is missing (a shard's job failed), after comparing what is there (stored as no baseline).
# GPUBENCH_CI_RESULTS and GPUBENCH_CI_BASELINES move the two folders (the test does).
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
  "$runner" merge "${results%.json}"-shard-*.json --output "$results" || status=$?
  # 3: planned entries that no shard delivered, listed above: compared all the same, failed below.
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    echo "bench-job: merging the shards failed (exit status $status)" >&2
    exit 1
  fi
  incomplete=$status
else
  output=$results shard=()
  if [ -n "${GPUBENCH_SHARD:-}" ]; then
    output="${results%.json}-shard-${GPUBENCH_SHARD%%/*}.json" shard=(--shard "$GPUBENCH_SHARD")
  fi
  "$runner" --quiet --plugin "*_$backend" --sizes "$sizes" --max-time 2 "${shard[@]}" \
    --output "$output" || status=$?
  # 3: some sizes lie outside some plugins' ranges, recorded as skipped: not a failure here.
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
  "$runner" compare "$baseline" "$results" --threshold 0.05
else
  echo "bench-job: no baseline $baseline yet (GPUBENCH_UPDATE_BASELINE=1 stores one); not compared"
fi
if [ "$incomplete" -ne 0 ]; then
  echo "bench-job: some planned entries are missing from $results (did a shard's job fail?); no baseline stored" >&2
  exit 1
fi
