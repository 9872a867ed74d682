#!/usr/bin/env bash
# ci/bench-job.sh, one cell of the CI matrix, end to end: no baseline passes and says so;
# storing one works; a baseline a million times as fast makes the job fail (a regression); one a million
# times as slow lets it pass (factors of 10^6: on a crowded host an OpenMP entry of a microsecond
# can take a 16 ms time slice, so smaller factors would let load change the outcome).
#   ci_bench_job_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1 build_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GPUBENCH_CI_RESULTS="$work/results" GPUBENCH_CI_BASELINES="$work/baselines"
job() { "$source_dir/ci/bench-job.sh" test-class omp small "$build_dir"; }

job | tee "$work/first.log"
grep -q "no baseline" "$work/first.log"
GPUBENCH_UPDATE_BASELINE=1 job >/dev/null
baseline="$work/baselines/test-class/omp-small.json"
test -s "$baseline"

scale() {  # scale every run() sample of the baseline by $1
  python3 - "$baseline" "$1" <<'PY'
import json, sys
path, factor = sys.argv[1], float(sys.argv[2])
doc = json.load(open(path))
for e in doc["entries"]:
    samples = e.get("timing", {}).get("samples", {})
    if "run" in samples:
        samples["run"] = [s * factor for s in samples["run"]]
json.dump(doc, open(path, "w"))
PY
}
scale 0.000001  # the baseline now a million times as fast: the new run is a regression
if job >"$work/regressed.log" 2>&1; then
  echo "FAIL: a 1000000x slowdown did not fail the job"; cat "$work/regressed.log"; exit 1
fi
grep -q "SLOWER" "$work/regressed.log"
scale 1000000000000  # now a million times as slow (tiny entries vary 2-3x between runs; OpenMP ones
                       # take a whole 16 ms time slice on a crowded host, 10000x): faster is fine
job >"$work/faster.log" || { cat "$work/faster.log"; exit 1; }
grep -q "faster" "$work/faster.log"
echo "ci/bench-job.sh: no baseline, update, regression and improvement all behave"
