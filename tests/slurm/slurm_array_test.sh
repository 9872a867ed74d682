#!/usr/bin/env bash
# A sharded sweep on a real Slurm (issue 15): a one-node cluster from Debian's slurm-wlm and
# munge (munged, slurmctld and slurmd on localhost, as root, configured in a temporary
# folder: one_node_cluster.sh), scripts/slurm/submit.sh's 4-task job array of CPU plugins
# (sweep.sbatch: --shard auto; no GPU requested) and its merge job (merge.sbatch), and the
# merged entries (plugin, size, params, seed, status) checked against one process's sweep of
# the same entries. Installs slurm-wlm and munge when missing, as root with apt-get.
# Exit 77 (ctest: skipped), with the reason, where they cannot be installed or the daemons
# cannot start; never a pass without the array having run.
#   slurm_array_test.sh BUILD_DIR
set -euo pipefail
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
runner="$build_dir/bin/runner"
# Three CPU plugins at sizes that take milliseconds, fixed seed, short sampling.
sweep=(--plugin copy_omp,vecadd_naive,matmul_naive --sizes 16,64,256 --seed 7 --threads 1
       --warmup 0 --min-samples 2 --max-samples 3 --min-time 0 --max-time 0.2 --quiet)

skip() { echo "SKIPPED: $*"; exit 77; }
say() { echo "slurm_array_test: $*"; }

source "$(dirname "$0")/one_node_cluster.sh"

# The same entries in one process; it also leaves the host's peaks measured and cached for
# the tasks, which would otherwise each measure them beside one another.
status=0
"$runner" "${sweep[@]}" --output "$work/whole.json" || status=$?
[ "$status" -eq 0 ] || { echo "FAIL: the single-process sweep exited with $status"; exit 1; }

# The job array, each task its own shard from Slurm's array variables, and the merge as a job
# that waits for every task to end: scripts/slurm/submit.sh, as the README says, without GPUs.
started=$SECONDS
results="$work/results"
RESULTS_DIR=$results GPUBENCH_RUNNER=$runner GPUS_PER_TASK=0 SBATCH_TIMELIMIT=2 \
  "$source_dir/scripts/slurm/submit.sh" 4 "${sweep[@]}" >"$work/submit.out" 2>&1 ||
  { echo "FAIL: scripts/slurm/submit.sh failed:"; cat "$work/submit.out"; exit 1; }
array=$(sed -n 's/^job array \([0-9]*\):.*/\1/p' "$work/submit.out")
merge=$(sed -n 's/^merge job \([0-9]*\):.*/\1/p' "$work/submit.out")
if [ -z "$array" ] || [ -z "$merge" ]; then echo "FAIL: no job ids from submit.sh:"; cat "$work/submit.out"; exit 1; fi
jobs="$array $merge"
say "submitted job array $array and merge job $merge"
finished() { ! squeue -h -j "$array,$merge" 2>/dev/null | grep -q .; }
if ! wait_for 90 finished; then
  echo "FAIL: jobs $array and $merge still queued or running after 90 s"; squeue; exit 1
fi
say "job array and merge finished in $((SECONDS - started)) s"
jobs=""  # finished: nothing left to cancel
for task in 0 1 2 3; do
  [ -s "$results/shard-$task.json" ] || { echo "FAIL: task $task wrote no shard"; cat "$results/task-$task.log"; exit 1; }
done
if ! scontrol show job "$merge" | grep -q "JobState=COMPLETED"; then
  echo "FAIL: the merge job did not complete:"; scontrol show job "$merge"; cat "$results/merge.log"; exit 1
fi
cat "$results/merge.log"

# The merged entries are the single process's, with the same statuses; each shard came from
# its array task.
check_merged() {  # MERGED_FILE SHARD_INDICES (comma-separated)
  "$("$source_dir/sdk/python/find-python.sh")" - "$work/whole.json" "$1" "$2" <<'PY'
import json, sys
def entries(path):
    return sorted((e["plugin"], e["size"], e["params"], e["seed"], e["status"])
                  for e in json.load(open(path))["entries"])
whole, merged = entries(sys.argv[1]), entries(sys.argv[2])
if whole != merged:
    sys.exit(f"FAIL: merged entries differ from one process's:\n  one process: {whole}\n  merged: {merged}")
shards = json.load(open(sys.argv[2]))["merged"]["shards"]
indices = ",".join(str(i) for i in sorted(s["index"] for s in shards))
if indices != sys.argv[3] or not all("SLURM_ARRAY_TASK_ID=" in s["source"] for s in shards):
    sys.exit(f"FAIL: the shards are not the array's tasks: {[(s['index'], s['source']) for s in shards]}")
print(f"slurm_array_test: {len(merged)} entries merged from array tasks {indices} match one process's sweep")
PY
}
check_merged "$results/merged.json" 0,1,2,3

# A task whose shard never came: the merge job's script exits 3 and prints the --resume
# command (without --plugin and --sizes), which measures what is missing.
partial="$work/partial"
mkdir -p "$partial"
cp "$results"/shard-{0,1,3}.json "$partial/"
status=0
RESULTS_DIR=$partial GPUBENCH_RUNNER=$runner "$source_dir/scripts/slurm/merge.sbatch" "${sweep[@]}" \
  >"$work/partial.log" 2>&1 || status=$?
resume=$(grep -A1 "this measures what is missing" "$work/partial.log" | tail -n +2)
if [ "$status" -ne 3 ] || [ -z "$resume" ] || [[ $resume == *--plugin* ]]; then
  echo "FAIL: merging 3 of 4 shards exited with $status (not 3) or printed no --resume command:"
  cat "$work/partial.log"; exit 1
fi
eval "$resume" >"$work/resume.log" 2>&1 || { echo "FAIL: $resume"; cat "$work/resume.log"; exit 1; }
check_merged "$partial/merged.json" 0,1,3
