#!/usr/bin/env bash
# README command 1: install what is missing, build, run the default sweep of every available
# plugin, report and plot it. Results: results/<host>-<timestamp>.json, its reports (.md, and
# .html: one self-contained interactive page) and one figure per workload (.png, .svg) beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh "$@"
build_dir=${GPUBENCH_BUILD_DIR:-build}
mkdir -p results
results="results/$(hostname)-$(date -u +%Y%m%dT%H%M%SZ).json"
status=0
"$build_dir/bin/runner" --output "$results" || status=$?
# Exit 3 only means some entries were skipped (e.g. no GPU): still plot what was measured.
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  echo "main-job: the sweep failed (exit status $status); see the table above and $results" >&2
  exit "$status"
fi
# The Python with matplotlib (sdk/python/find-python.sh: GPUBENCH_PYTHON, python3, /usr/bin/python3).
python=$(sdk/python/find-python.sh matplotlib)
"$python" runner/plot_results.py "$results"
# 3: nothing verified to report.
"$build_dir/bin/runner" report "$results" --output "${results%.json}.md" || [ $? -eq 3 ]
"$build_dir/bin/runner" report "$results" --format html --output "${results%.json}.html" || [ $? -eq 3 ]
echo "reports: ${results%.json}.md, ${results%.json}.html (open it in a browser)"
