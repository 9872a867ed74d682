#!/usr/bin/env bash
# The measurement checks of issue 4 on a GPU machine, over a build folder made elsewhere
# (default build-device): every test (the GPU ones run there), a matmul and vecadd sweep with
# every resource column, and cuBLAS SGEMM at 4096 timed by the runner and by an independent
# program (bench/cublas_reference.cu), which must agree within 2%. Output in ${OUT:-out}.
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-device}
out=${OUT:-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee "$out/gpu.txt"

echo "== tests"
ctest --test-dir "$build_dir" --output-on-failure 2>&1 | tee "$out/ctest.log" | tail -n 15

echo "== matmul and vecadd, every column"
"$build_dir/bin/runner" --plugin 'matmul_*,vecadd_*' --sizes 256,1024,4096,1e6,1e8 --max-time 3 \
  --output "$out/measure.json" 2>/dev/null | tee "$out/measure.txt"
echo "runner exit status: ${PIPESTATUS[0]}"

echo "== cuBLAS SGEMM 4096: the runner, then an independent measurement"
"$build_dir/bin/runner" --plugin matmul_cublas --sizes 4096 --min-samples 200 --max-samples 200 \
  --max-noise 0 --output "$out/cublas-4096.json" 2>/dev/null | grep matmul_cublas
"$build_dir/bin/cublas_reference" 4096 200
