#!/usr/bin/env bash
# The whole chain on a build folder made by scripts/test.sh: a quick sweep of every plugin
# that runs here (CPU plugins on a machine without a GPU) at small sizes, its reports (the
# HTML page too) and plots, its history, and a comparison of the results with themselves, which must find every entry the
# same. Output in ${GPUBENCH_BUILD_DIR:-build}/ci-chain.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GPUBENCH_BUILD_DIR:-build}
out="$build_dir/ci-chain"
rm -rf "$out"
mkdir -p "$out"
runner="$build_dir/bin/runner"

echo "== quick sweep"
status=0
"$runner" --quiet --sizes 100,1000 --min-time 0.02 --max-time 1 --output "$out/results.json" || status=$?
# 3: some sizes are outside some plugins' ranges (skipped, with the reason in the file).
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  echo "ci-chain: the sweep failed (exit status $status)" >&2
  exit 1
fi

echo "== report"
"$runner" report "$out/results.json" --output "$out/report.md"
"$runner" report "$out/results.json" --format csv --output "$out/report.csv"
"$runner" report "$out/results.json" --format gbench --output "$out/gbench.json"
"$runner" history add "$out/results.json" --db "$out/history.sqlite"
"$runner" report "$out/results.json" --format html --history "$out/history.sqlite" --output "$out/report.html"
head -n 12 "$out/report.md"
echo "report.html: $(wc -c < "$out/report.html") bytes"

echo "== plots"
python=$(sdk/python/find-python.sh matplotlib)
"$python" runner/plot_results.py "$out/results.json" --out-dir "$out"

echo "== compare with itself"
"$runner" compare "$out/results.json" "$out/results.json" | tee "$out/compare.md" | tail -n 1
grep -q "^0 slower or failed, 0 faster, .* same, 0 ambiguous" "$out/compare.md" || {
  echo "ci-chain: a results file compared with itself is not all 'same'" >&2
  exit 1
}
echo "ci-chain: sweep, reports, history, plots and compare all worked"
