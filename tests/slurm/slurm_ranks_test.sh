#!/usr/bin/env bash
# Ranks launched together on a real Slurm (docs/scale-out.md, "One rank per GPU"): on a
# one-node cluster (one_node_cluster.sh), a batch job of 2 tasks whose script runs the runner
# itself (one process: alone, whatever SLURM_NTASKS says) and then srun's 2 tasks, each a
# runner measuring fixture_ranks (a collective across ranks, on the CPU) and fixture_good:
# srun's tasks are one world of 2 ranks (SLURM_PROCID with SLURM_STEP_NUM_TASKS), the
# collective measured in lock-step on both (--warmup + --min-samples calls of run(), whatever
# --max-time says), the other plugin by each alone, and the job's srun exits 0. Exit 77 (ctest:
# skipped), with the reason, where the cluster cannot be had.
#   slurm_ranks_test.sh BUILD_DIR
set -euo pipefail
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
runner="$build_dir/bin/runner"
sweep="--plugin-dir $build_dir/tests/fixtures --plugin fixture_ranks,fixture_good --sizes 10,20"
sweep+=" --warmup 1 --min-samples 3 --max-samples 50 --min-time 0 --max-time 0.01 --rank-timeout 30"

skip() { echo "SKIPPED: $*"; exit 77; }
say() { echo "slurm_ranks_test: $*"; }

source "$(dirname "$0")/one_node_cluster.sh"

out="$work/out"
mkdir -p "$out"
cat >"$work/ranks.sbatch" <<JOB
#!/bin/bash
#SBATCH --ntasks=2 --time=2 --output=$out/job.log --chdir=$out
$runner $sweep --quiet -o $out/batch.json
srun sh -c 'exec $runner $sweep -o $out/rank-\$SLURM_PROCID.json > $out/rank-\$SLURM_PROCID.log 2>&1'
echo "srun exit \$?"
JOB
jobs=$(sbatch --parsable "$work/ranks.sbatch") || { echo "FAIL: sbatch refused the job"; exit 1; }
say "submitted job $jobs"
finished() { ! squeue -h -j "$jobs" 2>/dev/null | grep -q .; }
wait_for 90 finished || { echo "FAIL: job $jobs still queued or running after 90 s"; squeue; exit 1; }
jobs=""  # finished: nothing left to cancel
cat "$out/job.log"
grep -q "^srun exit 0$" "$out/job.log" || { echo "FAIL: srun's tasks did not both exit 0"; cat "$out"/rank-*.log; exit 1; }
"$("$source_dir/sdk/python/find-python.sh")" - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def fail(why):
    sys.exit(f"FAIL: {why}")
batch = json.load(open(f"{out}/batch.json"))
if "world" in batch["options"]:
    fail(f"the batch script, one process, took itself for a rank: {batch['options']['world']}")
for rank in (0, 1):
    document = json.load(open(f"{out}/rank-{rank}.json"))
    world = document["options"].get("world", {})
    if (world.get("rank"), world.get("ranks")) != (rank, 2) or "SLURM_STEP_NUM_TASKS=2" not in world.get("source", ""):
        fail(f"srun's task {rank} is not rank {rank} of 2: {world}")
    for entry in document["entries"]:
        runs = {m["name"]: m["value"] for m in entry.get("metrics", [])}.get("runs")
        if entry["status"] != "ok":
            fail(f"rank {rank}: {entry['plugin']} {entry['size']}: {entry['status']} {entry['message']}")
        if entry["plugin"] == "fixture_ranks" and (entry.get("ranks") != {"rank": rank, "ranks": 2} or runs != 1 + 3):
            fail(f"rank {rank}: {entry['size']} not measured in lock-step: {entry.get('ranks')}, {runs} runs")
        if entry["plugin"] == "fixture_good" and "ranks" in entry:
            fail(f"rank {rank}: fixture_good {entry['size']} was measured across ranks")
print("slurm_ranks_test: srun's 2 tasks measured fixture_ranks in lock-step, fixture_good each alone; the batch script alone")
PY
