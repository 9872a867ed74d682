#!/usr/bin/env bash
# Issue 12 on a GPU machine over a carried build folder (default build-device): every test
# (the GPU ones run there), the n=10 headlines of vecadd_cuda, copy_cuda and matmul_cublas,
# and bench/sweep_cost.sh (context floor, first result, per-entry overhead, default sweep).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
out=${OUT:-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== tests"
ctest --test-dir "$build" -j6 --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.log" | head -20
echo "== n=10 headlines"
"$build/bin/runner" --plugin vecadd_cuda,copy_cuda,matmul_cublas --sizes 10 \
  -o "$out/n10.json" 2>/dev/null | tee "$out/n10.txt"
echo "== sweep cost"
bench/sweep_cost.sh "$build"
