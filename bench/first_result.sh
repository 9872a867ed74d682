#!/usr/bin/env bash
# Fresh process -> first verified vecadd_cuda result (n=10), 5 times, beside its floor, a bare
# CUDA context (bench/cuda_context.cu: cudaFree(0), then exit), under the CUDA_VISIBLE_DEVICES
# this script is given. Prints one line per run and, last, the medians:
#   medians: context_s=... first_process_s=... first_entry_s=...
# (first_entry_s: the entry's own finished_after_s, from the runner's start; each run's line
# also says when the runner sent the entry to its worker, and how long the entry took there.)
#   bench/first_result.sh [BUILD_FOLDER] [RUNNER OPTIONS...]     (default build-device)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
shift $(( $# > 0 ))
runner="$build/bin/runner"
python=$(sdk/python/find-python.sh) || exit 1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

: > "$scratch/runs"
for i in 1 2 3 4 5; do
  t0=$(now); "$build/bin/cuda_context" || exit 1; t1=$(now)
  "$runner" --plugin vecadd_cuda --sizes 10 "$@" -q -o "$scratch/first.json" >/dev/null 2>&1
  t2=$(now)
  "$python" - "$scratch/first.json" "$t0" "$t1" "$t2" >> "$scratch/runs" <<'PY'
import json, sys
results, t0, t1, t2 = sys.argv[1], *map(float, sys.argv[2:])
entry = json.load(open(results))["entries"][0]
harness = entry["harness"]
first = harness["finished_after_s"] if entry["valid"] else float("nan")
print(f"{t1 - t0:.4f} {t2 - t1:.4f} {first:.4f} {first - harness['entry_wall_s']:.4f} {harness['entry_wall_s']:.4f}")
PY
  rm -f "$scratch/first.json"
done
awk '{printf "run %d: context %.3f s, first result %.3f s (process), %.3f s (entry: sent at %.3f s, took %.3f s)\n",
  NR, $1, $2, $3, $4, $5}' "$scratch/runs"
echo "medians: context_s=$(cut -d' ' -f1 "$scratch/runs" | median) first_process_s=$(cut -d' ' -f2 "$scratch/runs" | median)" \
  "first_entry_s=$(cut -d' ' -f3 "$scratch/runs" | median)"
