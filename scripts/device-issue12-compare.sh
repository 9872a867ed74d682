#!/usr/bin/env bash
# Issue 12, second pass on a GPU machine over a carried build folder: the GPU tests, the
# sweep-cost benchmark (bench/sweep_cost.sh), and the committed H100 study sweeps of matmul,
# vecadd, copy and mandelbrot re-run with their own options and compared with the committed
# files (runner compare): nothing but the harness changed, so nothing should move.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
out=${OUT:-out}
mkdir -p "$out"
runner="$build/bin/runner"
echo "== GPU tests"
ctest --test-dir "$build" -R "GPU|CUDA|gpu|cuda|sanitiz|microsecond|mistakes|poisons" \
  --output-on-failure > "$out/ctest-gpu.log" 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed" "$out/ctest-gpu.log"
echo "== sweep cost"
bench/sweep_cost.sh "$build" | tee "$out/sweep-cost.txt"
echo "== study sweeps re-run and compared"
"$runner" -q --plugin 'matmul_*,vecadd_*' --sizes 256,1024,4096,1e6,1e8 --max-time 3 \
  -o "$out/measure.json" >/dev/null 2>&1
"$runner" -q --plugin 'mandelbrot_cuda,mandelbrot_thrust' --sizes 1024,2048,4096,8192 \
  --param iterations=256 --max-time 5 -o "$out/mandelbrot.json" >/dev/null 2>&1
{
  "$runner" compare results/h100-measure-2026-11-23.json "$out/measure.json"
  echo "exit $?"
  "$runner" compare results/h100-mandelbrot-2026-11-23.json "$out/mandelbrot.json"
  echo "exit $?"
} > "$out/compare.txt" 2>&1
grep -vE "^\s*$" "$out/compare.txt" | tail -45
