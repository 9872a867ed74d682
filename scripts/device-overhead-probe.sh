#!/usr/bin/env bash
# Why vecadd_cupy at 1e8 ran ~0.60 ms through the runner but ~0.48 ms in bench/cupy_events.py
# (issue 14): the runner's vecadd_cupy and vecadd_cuda entries, the bench under each of its
# protocols, then ncu on the CuPy kernel in both processes (same grid, instructions, DRAM
# bytes and clock: the kernel is the same; the gap is the protocol). Run on a GPU machine over
# a carried build-device folder; output in $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH
R=build-device/bin/runner
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B="python3 -W ignore::DeprecationWarning bench/cupy_events.py"
$R --plugin vecadd_cupy,vecadd_cuda --sizes 1000000,100000000 --quiet -o $OUT/r.json > $OUT/runner.txt 2>&1; tail -3 $OUT/runner.txt
for p in phases cycle back-to-back; do $B --protocol $p --results $OUT/r.json vecadd:1000000 vecadd:100000000; done
NCU="ncu --clock-control none --target-processes all -k regex:add --launch-skip 3 --launch-count 3 --metrics gpu__time_duration.sum,dram__bytes.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum"
timeout 200 $NCU $R --in-process --plugin vecadd_cupy --sizes 100000000 --max-samples 8 --min-samples 8 --min-time 0 --quiet -o $OUT/ncu-r.json > $OUT/ncu-runner.txt 2>&1
grep -E "cupy|add|Duration|dram__|grid|block|registers|cycles_elapsed|inst_executed|==PROF==|ERR" $OUT/ncu-runner.txt | head -40
timeout 120 $NCU $B --protocol phases --min-samples 8 --min-time 0 vecadd:100000000 > $OUT/ncu-bench.txt 2>&1
grep -E "cupy|add|Duration|dram__|grid|block|registers|cycles_elapsed|inst_executed|==PROF==|ERR" $OUT/ncu-bench.txt | head -40
