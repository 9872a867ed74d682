#!/usr/bin/env bash
# What a sweep costs beyond its samples, on a GPU machine over a build
# folder made elsewhere (default build-device). Measured in one run, medians of 5:
#   - a bare CUDA context, and a fresh runner process -> first verified vecadd_cuda result
#     (bench/first_result.sh);
#   - per-entry harness overhead (entry wall time minus time inside the plugin's calls),
#     median over the entries of the default sweep;
#   - the default sweep's wall time (`runner` with no arguments).
# Writes $OUT/sweep-cost.json (or out/) and prints a table.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
out=${OUT:-out}
mkdir -p "$out"
runner="$build/bin/runner"
python=$(sdk/python/find-python.sh) || exit 1
now() { date +%s.%N; }
minus() { "$python" -c "print($1 - $2)"; }

medians=$(bench/first_result.sh "$build" | tail -1) || exit 1
value() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" ${medians#medians: }"; }
context_s=$(value context_s) first_wall_s=$(value first_process_s) first_entry_s=$(value first_entry_s)

t0=$(now)
"$runner" -q -o "$out/default-sweep.json" >"$out/default-sweep.txt" 2>&1
status=$?
t1=$(now)
sweep_s=$(minus "$t1" "$t0")
"$python" - "$out/default-sweep.json" "$context_s" "$first_wall_s" "$first_entry_s" "$sweep_s" "$status" \
  "$out/sweep-cost.json" <<'PY'
import json, statistics, sys
results, context, first_wall, first_entry, sweep, status, target = sys.argv[1:]
doc = json.load(open(results))
entries = [e for e in doc["entries"] if "harness" in e and "overhead_s" in e["harness"]]
overheads = [e["harness"]["overhead_s"] for e in entries]
started = sum(1 for e in entries if e["harness"]["worker_started"])
summary = {
    "gpu": doc["gpu"].get("name", "none"),
    "cuda_context_s": float(context),
    "first_vecadd_cuda_process_s": float(first_wall),
    "first_vecadd_cuda_finished_after_s": float(first_entry),
    "first_result_minus_context_s": float(first_wall) - float(context),
    "default_sweep_s": float(sweep),
    "default_sweep_exit_status": int(status),
    "default_sweep_entries": len(doc["entries"]),
    "workers_started": started,
    "entry_overhead_median_s": statistics.median(overheads) if overheads else None,
    "entry_overhead_max_s": max(overheads) if overheads else None,
}
json.dump(summary, open(target, "w"), indent=1)
for key, value in summary.items():
    print(f"{key:40} {value:.4g}" if isinstance(value, float) else f"{key:40} {value}")
PY
