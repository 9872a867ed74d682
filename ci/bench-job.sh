#!/usr/bin/env bash
# One cell of the comparative CI matrix (ci/github-actions.yml calls it; it runs anywhere):
#   ci/bench-job.sh RUNNER_CLASS BACKEND SIZE_GROUP [BUILD_DIR]
# measures every plugin of BACKEND ("omp", "cuda"...) at the sizes of SIZE_GROUP into
# ci-results/<class>-<backend>-<group>.json, then compares it with the stored baseline of the
# same runner class, ci/baselines/<class>/<backend>-<group>.json: exit 1 on a regression (a
# significant slowdown beyond 5%, or a failed verification). Without a baseline it says so
# and passes; GPUBENCH_UPDATE_BASELINE=1 stores the new results as the baseline.
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
status=0
"$build_dir/bin/runner" --quiet --plugin "*_$backend" --sizes "$sizes" --max-time 2 \
  --output "$results" || status=$?
# 3: some sizes lie outside some plugins' ranges, recorded as skipped: not a failure here.
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  echo "bench-job: the sweep failed (exit status $status); see $results" >&2
  exit 1
fi
baseline="$baselines_dir/$class/$backend-$group.json"
if [ "${GPUBENCH_UPDATE_BASELINE:-0}" = 1 ]; then
  mkdir -p "$(dirname "$baseline")"
  cp "$results" "$baseline"
  echo "bench-job: $baseline updated"
elif [ -f "$baseline" ]; then
  "$build_dir/bin/runner" compare "$baseline" "$results" --threshold 0.05
else
  echo "bench-job: no baseline $baseline yet (GPUBENCH_UPDATE_BASELINE=1 stores one); not compared"
fi
