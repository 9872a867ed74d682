#!/usr/bin/env bash
# The study sweep of issue 3 on a GPU machine, over a build folder made elsewhere:
#   scripts/device-sweep.sh BUILD_DIR WORKLOAD...    (workloads: sort logreg vecadd mandelbrot solvebak;
#                                                    vecadd includes the copy reference)
# One results file per workload and run in ${OUT:-out}/sweep-<workload>[-<variant>].json, with the
# console table beside it. Sizes beyond a plugin's range are skipped with the reason (exit 3).
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir=$1
shift
out=${OUT:-out}
mkdir -p "$out"
runner=("$build_dir/bin/runner")

# sweep NAME PLUGINS SIZES [runner options...]
sweep() {
  local name=$1 plugins=$2 sizes=$3
  shift 3
  echo "== $name: $plugins at $sizes $*"
  "${runner[@]}" --plugin "$plugins" --sizes "$sizes" --output "$out/sweep-$name.json" "$@" \
    2>&1 | tee "$out/sweep-$name.txt"
  echo "runner exit status: ${PIPESTATUS[0]}"
}

for workload in "$@"; do
  case $workload in
    sort)
      sweep sort-gpu 'sort_cuda,sort_thrust' '10..1e9:*10'
      sweep sort-cpu 'sort_naive,sort_omp' '10..1e8:*10' --max-time 5
      sweep sort-gpu-descending 'sort_cuda,sort_thrust' '1e6,1e8,1e9' --param input=descending
      sweep sort-cpu-descending 'sort_naive,sort_omp' '1e6,1e8' --param input=descending --max-time 5 ;;
    logreg)
      sweep logreg 'logreg_*' '60,600,6000,60000' --max-time 5 ;;
    vecadd)
      sweep vecadd 'vecadd_*' '1e3..1e9:*10'
      sweep vecadd-increment 'vecadd_*' '1e3..1e9:*10' --param variant=increment
      sweep copy 'copy_*' '1e3..1e9:*10' ;;  # the bandwidth vecadd is read against
    mandelbrot)
      sweep mandelbrot 'mandelbrot_*' '1024,2048,4096,8192' --param iterations=256 --max-time 5 ;;
    solvebak)
      sweep solvebak 'solvebak_*' '1e4,1e5,1e6' --max-time 5
      sweep solvebak-batch100 'solvebak_*' '1e4,1e5,1e6' --param batch=100 --max-time 5 ;;
    *) echo "device-sweep: unknown workload '$workload'" >&2; exit 2 ;;
  esac
done
