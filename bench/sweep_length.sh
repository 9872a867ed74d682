#!/usr/bin/env bash
# How a sweep's cost grows with its length: one CPU plugin (vecadd_naive) at N sizes from 10 (its minimum), one
# sample each, for each N given (default 200 1000 3000). Prints, per N, the wall time, the
# time per entry and the results file's size, then the time per entry at the largest N over
# that at the smallest: about 1 when the runner's own work per entry does not grow with the
# sweep (it grew with it while each entry rewrote the whole results file).
#   bench/sweep_length.sh [BUILD_FOLDER] [N...]     (default build-device)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
shift $(( $# > 0 ))
lengths=("$@")
[ ${#lengths[@]} -gt 0 ] || lengths=(200 1000 3000)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
now() { date +%s.%N; }

printf '%10s %12s %12s %14s\n' entries wall_s per_entry_ms results_MB
first="" last=""
for n in "${lengths[@]}"; do
  t0=$(now)
  "$build/bin/runner" --plugin vecadd_naive --sizes "10..$((n + 9)):+1" --min-samples 1 --max-samples 1 --min-time 0 \
    --warmup 0 -q -o "$scratch/sweep-$n.json" >/dev/null 2>&1
  status=$?
  t1=$(now)
  [ $status -le 1 ] || { echo "runner exited with status $status at $n entries" >&2; exit 1; }
  per_entry=$(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN {printf "%.3f", (b - a) * 1000 / n}')
  awk -v n="$n" -v a="$t0" -v b="$t1" -v p="$per_entry" -v bytes="$(stat -c %s "$scratch/sweep-$n.json")" \
    'BEGIN {printf "%10d %12.2f %12.3f %14.2f\n", n, b - a, p, bytes / 1e6}'
  [ -n "$first" ] || first=$per_entry
  last=$per_entry
done
awk -v a="$first" -v b="$last" 'BEGIN {printf "time per entry, longest sweep over shortest: %.2f\n", b / a}'
