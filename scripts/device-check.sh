#!/usr/bin/env bash
# Runs on a GPU machine over a build folder made elsewhere (default build-device, configured
# with -DCMAKE_CUDA_ARCHITECTURES=90): the GPU's state, every test, the matmul sweep of the
# foundation issue, a float64 check, and the harness-overhead benchmarks. Logs and results go to ${OUT:-out}.
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-device}
out=${OUT:-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee "$out/gpu.txt"

echo "== tests"
ctest --test-dir "$build_dir" --output-on-failure 2>&1 | tee "$out/ctest.log" | tail -n 25

echo "== matmul sweep"
"$build_dir/bin/runner" --plugin 'matmul_*' --sizes 128,1024,4096,8192 \
  --output "$out/matmul-sweep.json" 2>&1 | tee "$out/matmul-sweep.txt"
echo "runner exit status: ${PIPESTATUS[0]}"

echo "== matmul float64 at small, odd and large sizes"
"$build_dir/bin/runner" --plugin 'matmul_*' --sizes 1,7,33,1000,4096 --param dtype=float64 \
  --min-time 0.1 --output "$out/matmul-float64.json" 2>&1 | tee "$out/matmul-float64.txt"
echo "runner exit status: ${PIPESTATUS[0]}"

echo "== harness overhead"
"$build_dir/bin/harness_overhead" --benchmark_min_time=0.2 2>&1 | tee "$out/overhead.txt" | tail -n 12
