#!/usr/bin/env bash
# Issue 17 on a GPU machine over a carried build folder (default build-device): the
# hand-written kernels against their libraries.
#   check   every test, then matmul_cuda against cuBLAS in both dtypes at odd and large N,
#           and ncu readings of the GEMM kernels at 8192
#   sweeps [NAME...]  the GPU backends of the changed workloads (sort, logreg, matmul,
#           mandelbrot, ann) back to back at the studies' sizes: one results file each, its
#           report and plots, and runner compare against the committed study sweep's same
#           entries. NAMEs (sort, logreg-10steps...) run only those sweeps.
# Logs and results go to ${OUT:-out}.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device-common.sh "${1:-}" "${2:-}" check
quick="--min-time 0.2 --max-time 3"
gpu() { "$runner" --list | awk -v w="$1" '$2 == w && $4 == "cuda" {print $1}' | paste -sd, -; }

if [ "$mode" = check ]; then
  run_ctest "$build"
  for dtype in float32 float64; do
    "$runner" --plugin matmul_cuda,matmul_cublas --sizes 100,777,1000,4096,8192,16384 $quick \
      --param dtype=$dtype -o "$out/matmul-$dtype.json" 2>&1 | grep -E "^matmul|ok,"
  done
  profile="--in-process --plugin matmul_cuda --sizes 8192 --warmup 0 --min-samples 1 --max-samples 1 --min-time 0 -q"
  for dtype in float32 float64; do
    ncu --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
      "$runner" $profile --param dtype=$dtype 2>&1 \
      | grep -E "^  [a-z_]|Duration|Throughput|Pipe|Ipc|Achieved Occ|Registers" | head -16
  done
  exit 0
fi

began=$(date +%s)
only=" ${*:3} "
sweep() {  # name sizes [options...]: the workload's GPU backends, back to back
  local name=$1 sizes=$2
  shift 2
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || return 0
  "$runner" --plugin "$(gpu "${name%%-*}")" --sizes "$sizes" $quick "$@" -o "$out/$name.json" \
    > "$out/$name.txt" 2>&1
  grep -E "^[0-9]+ ok" "$out/$name.txt" | tr '\n' ' '
  echo "<- $name"
}
sweep sort 10000,1000000,100000000,1000000000
sweep sort-descending 100000000,1000000000 --param input=descending
sweep logreg 600,6000,60000
sweep logreg-10steps 60000 --param iterations=10
sweep matmul 128,1024,4096,8192
sweep matmul-float64 1024,4096,8192 --param dtype=float64
sweep mandelbrot 256,1024,8192 --param iterations=256
sweep ann 10000,100000,1000000
echo "sweeps took $(( $(date +%s) - began )) s"
report_and_plot h100-issue17
for name in sort logreg matmul mandelbrot; do  # the committed study sweep as the baseline
  [ -f "$out/$name.json" ] || continue
  echo "== $name: this run against results/h100-python-$name-2026-11-24.json"
  "$runner" compare "results/h100-python-$name-2026-11-24.json" "$out/$name.json" 2>&1 \
    | grep -v "only in baseline" | head -30
done
