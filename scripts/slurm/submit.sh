#!/usr/bin/env bash
# Submits a sharded sweep to Slurm (docs/scale-out.md): a job array of N tasks of
# scripts/slurm/sweep.sbatch, one shard and one GPU each, then scripts/slurm/merge.sbatch as a
# job that starts once every task has ended (afterany) and merges the shards into
# $RESULTS_DIR/merged.json (exit 1 there: an entry failed; 3: entries skipped or missing, the
# missing ones listed in its log with how to --resume them).
#   scripts/slurm/submit.sh N RUNNER_OPTION...
#   e.g. scripts/slurm/submit.sh 4 --plugin 'matmul_*' --sizes 1024,4096
# RUNNER_OPTION: the sweep's runner options, given to every task alike (not --output).
# Environment:
#   RESULTS_DIR      the shards' files, their logs (task-<I>.log, merge.log) and merged.json;
#                    default results/sweep-<UTC time>
#   GPUBENCH_RUNNER  the runner, as the nodes see it; default build/bin/runner of this checkout
#   GPUS_PER_TASK    GPUs per task (default 1; 0: none, for CPU plugins)
# Slurm's own variables (SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT...) apply to both
# jobs. Prints the two job ids.
set -euo pipefail
if [ $# -lt 1 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/slurm/submit.sh N [RUNNER_OPTION...] (N shards, N >= 1)" >&2
  exit 2
fi
shards=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
export GPUBENCH_RUNNER=${GPUBENCH_RUNNER:-$(cd "$here/../.." && pwd)/build/bin/runner}
export RESULTS_DIR=${RESULTS_DIR:-results/sweep-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$RESULTS_DIR"  # Slurm does not create the logs' folder
RESULTS_DIR=$(cd "$RESULTS_DIR" && pwd)
gpus=${GPUS_PER_TASK:-1}
gres=gpu:$gpus
[ "$gpus" != 0 ] || gres=none
job_id() { local id; id=$(sbatch --parsable "$@") && echo "${id%%;*}"; }
array=$(job_id --array="0-$((shards - 1))" --gres="$gres" --output="$RESULTS_DIR/task-%a.log" \
  "$here/sweep.sbatch" "$@")
merge=$(job_id --dependency="afterany:$array" --output="$RESULTS_DIR/merge.log" \
  "$here/merge.sbatch" "$@")
echo "job array $array: $shards shards into $RESULTS_DIR/shard-<I>.json (logs: task-<I>.log)"
echo "merge job $merge: $RESULTS_DIR/merged.json once every task has ended (log: merge.log)"
