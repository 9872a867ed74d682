#!/usr/bin/env bash
# ci/bench-job.sh, one cell of the CI matrix, end to end: no baseline passes and says so;
# storing one works; a baseline a million times as fast makes the job fail (a regression); one a million
# times as slow lets it pass (factors of 10^6: on a crowded host an OpenMP entry of a microsecond
# can take a 16 ms time slice, so smaller factors would let load change the outcome). Then the
# cell measured in two shards and merged, compared alike; a missing shard fails the job.
#   ci_bench_job_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1 build_dir=$2
work=$(mktemp -d)
python=$("$source_dir/sdk/python/find-python.sh")
trap 'rm -rf "$work"' EXIT
export GPUBENCH_CI_RESULTS="$work/results" GPUBENCH_CI_BASELINES="$work/baselines"
# The job's history check is tested by ci_history_test.sh; here the real microsecond timings
# on a crowded host would make steps of their own: a threshold of 10000% lets none count.
export GPUBENCH_HISTORY_DB="$work/history.sqlite" GPUBENCH_HISTORY_THRESHOLD=100
job() { "$source_dir/ci/bench-job.sh" test-class omp small "$build_dir"; }

job | tee "$work/first.log"
grep -q "no baseline" "$work/first.log"
GPUBENCH_UPDATE_BASELINE=1 job >/dev/null
baseline="$work/baselines/test-class/omp-small.json"
test -s "$baseline"

scale() {  # scale every run() sample of the baseline by $1
  "$python" - "$baseline" "$1" <<'PY'
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

# Sharded, as the workflow runs it: two shard jobs, then the merge compared with the baseline.
rm "$work/results/test-class-omp-small.json"
GPUBENCH_SHARD=0/2 job >/dev/null
GPUBENCH_SHARD=1/2 job >/dev/null
test ! -e "$work/results/test-class-omp-small.json"  # a shard compares nothing
GPUBENCH_MERGE=1 job >"$work/merged.log" || { cat "$work/merged.log"; exit 1; }
grep -q "merged 2 of 2 shards" "$work/merged.log"
grep -q "faster" "$work/merged.log"
# A shard's job that failed: what the others delivered is compared, and the job fails.
rm "$work/results/test-class-omp-small-shard-1.json"
if GPUBENCH_MERGE=1 job >"$work/incomplete.log" 2>&1; then
  echo "FAIL: a missing shard did not fail the merge job"; cat "$work/incomplete.log"; exit 1
fi
grep -q "faster" "$work/incomplete.log"
grep -q "some planned entries are missing" "$work/incomplete.log"

# The workflow runs it so: the shard jobs and the merge jobs cover the same cells, and the
# shard count is the matrix's (checked where PyYAML is installed).
yaml_python=$("$source_dir/sdk/python/find-python.sh" yaml 2>/dev/null) || yaml_python=$python
"$yaml_python" - "$source_dir/ci/github-actions.yml" <<'PY'
import sys
try:
    import yaml
except ImportError:
    print("ci/github-actions.yml not checked: no PyYAML"); sys.exit(0)
jobs = yaml.safe_load(open(sys.argv[1]))["jobs"]
cells = dict(jobs["bench"]["strategy"]["matrix"])
shards = cells.pop("shard")
if cells != jobs["compare"]["strategy"]["matrix"] or jobs["compare"]["needs"] != "bench":
    sys.exit("FAIL: ci/github-actions.yml: the compare jobs do not merge the bench jobs' cells")
env = [s.get("env", {}) for s in jobs["bench"]["steps"]]
if shards != list(range(len(shards))) or {"GPUBENCH_SHARD": f"${{{{ matrix.shard }}}}/{len(shards)}"} not in env:
    sys.exit(f"FAIL: ci/github-actions.yml: GPUBENCH_SHARD is not shard I of the {len(shards)} of the matrix")
PY
echo "ci/bench-job.sh: no baseline, update, regression, improvement and shards all behave"
