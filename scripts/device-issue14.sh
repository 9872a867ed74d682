#!/usr/bin/env bash
# Issue 14 on a GPU machine over a carried build folder (default build-device): the Python
# backends beside the C++ and CUDA ones.
#   tests   every test (the contract test runs every Python backend at the contract sizes)
#   sweeps  each workload, all its backends, at the studies' sizes (one results file each,
#           with its report and plots), then bench/cupy_events.py against the cupy entries
#   large   the GPU backends at the largest sizes, resumed into the committed results, then
#           the reports, plots and bench/cupy_events.py
#   bridge  the bridge's cost alone: the cupy entries of matmul and vecadd through the runner,
#           then the same calls with CuPy's events outside (bench/cupy_events.py), twice
# Logs and results go to ${OUT:-out}.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device-common.sh "${1:-}" "${2:-}" tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import sys, numpy, cupy, numba; from numba import cuda
print("python", sys.version.split()[0], "numpy", numpy.__version__, "cupy", cupy.__version__,
      "numba", numba.__version__, "numba.cuda available:", cuda.is_available())'

if [ "$mode" = tests ]; then
  run_ctest "$build"
  "$runner" --list > "$out/list.txt" 2>&1
  grep -E "_(numpy|numba|numba_cuda|cupy) " "$out/list.txt" | awk '{print $1, $5}'
  exit 0
fi

if [ "$mode" = bridge ]; then
  # Rounds alternate the runner and the bench, so that drift in the machine shows in both.
  for round in 1 2 3; do
    "$runner" --plugin matmul_cupy --sizes 128,1024,4096,8192 --max-time 3 --quiet -o "$out/bridge-matmul-$round.json" > /dev/null 2>&1
    "$runner" --plugin vecadd_cupy --sizes 1000,1000000,100000000,1000000000 --max-time 3 --quiet -o "$out/bridge-vecadd-$round.json" > /dev/null 2>&1
    python3 -W ignore::DeprecationWarning bench/cupy_events.py --min-time 0.5 --min-samples 30 --results "$out/bridge-matmul-$round.json" \
      matmul:128 matmul:1024 matmul:4096 matmul:8192 2>&1 | tee -a "$out/cupy-events.txt"
    python3 -W ignore::DeprecationWarning bench/cupy_events.py --min-time 0.5 --min-samples 30 --results "$out/bridge-vecadd-$round.json" \
      vecadd:1000 vecadd:1000000 vecadd:100000000 vecadd:1000000000 2>&1 | tee -a "$out/cupy-events.txt"
  done
  exit 0
fi

# One workload: all backends at the sizes every backend runs, then (resumed into the same
# file) the GPU backends at the large sizes.
quick="--threads 16 --min-time 0.2 --max-time 3"
sweep() {
  local name=$1 all_sizes=$2 gpu_plugins=$3 gpu_sizes=$4
  shift 4
  local file="$out/$name.json"
  rm -f "$file"
  "$runner" --plugin "${name%%-*}_*" --sizes "$all_sizes" $quick "$@" -o "$file" > "$out/$name.txt" 2>&1
  if [ -n "$gpu_sizes" ]; then
    "$runner" --plugin "$gpu_plugins" --sizes "$gpu_sizes" $quick "$@" --resume "$file" >> "$out/$name.txt" 2>&1
  fi
  grep -E "^[0-9]+ ok" "$out/$name.txt" | tr '\n' ' '
  echo "<- $name"
}
# The workload's GPU plugins, as --list names them (a pattern that matches none is an error).
gpu() { "$runner" --list | awk -v w="$1" '$2 == w && $4 == "cuda" {print $1}' | paste -sd, -; }
began=$(date +%s)
if [ "$mode" = large ]; then
  # The GPU backends at the studies' large sizes, added to the committed sweeps (--resume).
  large() {
    local name=$1 sizes=$2
    shift 2
    cp "results/h100-python-$name-2026-11-24.json" "$out/$name.json"
    "$runner" --plugin "$(gpu "${name%%-*}")" --sizes "$sizes" $quick "$@" --resume "$out/$name.json" \
      > "$out/$name-large.txt" 2>&1
    grep -E "^[0-9]+ ok" "$out/$name-large.txt" | tr '\n' ' '
    echo "<- $name $sizes $*"
  }
  large matmul 8192
  large sort 100000000,1000000000
  large logreg 60000 --param iterations=10
  large solvebak 1000000
  large mandelbrot 1024,8192 --param iterations=256
  cp results/h100-python-vecadd-2026-11-24.json "$out/vecadd.json"  # for the bench below
else
  sweep matmul 128,1024,4096 "$(gpu matmul)" 8192
  sweep vecadd 1000,1000000,100000000 "$(gpu vecadd)" 1000000000
  sweep vecadd-increment 1000,1000000,100000000 "$(gpu vecadd)" "" --param variant=increment
  sweep sort 10000,1000000 "$(gpu sort)" 100000000,1000000000
  sweep mandelbrot 256,1024 "$(gpu mandelbrot)" 8192
  sweep logreg 600,6000 "$(gpu logreg)" 60000
  sweep solvebak 10000,100000 "$(gpu solvebak)" 1000000
fi
echo "sweeps took $(( $(date +%s) - began )) s"
report_and_plot h100-python

echo "== CuPy's own events vs the bridge"
for protocol in cycle back-to-back; do
  python3 -W ignore::DeprecationWarning bench/cupy_events.py --protocol $protocol --results "$out/matmul.json" \
    matmul:128 matmul:1024 matmul:4096 matmul:8192 2>&1 | tee -a "$out/cupy-events.txt"
  python3 -W ignore::DeprecationWarning bench/cupy_events.py --protocol $protocol --results "$out/vecadd.json" \
    vecadd:1000 vecadd:1000000 vecadd:100000000 vecadd:1000000000 2>&1 | tee -a "$out/cupy-events.txt"
done
