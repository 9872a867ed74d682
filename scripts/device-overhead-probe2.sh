#!/usr/bin/env bash
# matmul_cupy at 128 and 1024 costs 7-17 us more through the runner than in
# bench/cupy_events.py: the cuBLAS kernels each process runs and their durations (ncu), to
# tell a library or kernel difference from a host-side one. Over a carried build-dev-r
# folder on a GPU machine (scripts/device-issue14.sh says how it is built); output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
R=build-dev-r/bin/runner
M="--clock-control none --target-processes all --launch-skip 10 --launch-count 4 --metrics gpu__time_duration.sum"
for n in 128 1024; do
  echo "== ncu runner $n"
  ncu $M $R --in-process --plugin matmul_cupy --sizes $n --min-samples 20 --max-samples 20 --quiet -o $OUT/ncu-$n.json 2>&1 | grep -E "^\s+[a-zA-Z_].*\(|gpu__time" | head -8
  echo "== ncu bench $n"
  ncu $M python3 -W ignore bench/cupy_events.py --min-samples 20 --min-time 0 matmul:$n 2>&1 | grep -E "^\s+[a-zA-Z_].*\(|gpu__time" | head -8
done
