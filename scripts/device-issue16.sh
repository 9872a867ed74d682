#!/usr/bin/env bash
# Issue 16 on a machine with several GPUs, over a carried build folder (default build-device):
#   sweep       the GPU part of the study sweep with --devices 0, then --devices all, back to
#               back: the wall-time ratio, and runner compare per device
#   allreduce   allreduce_nccl from 8 MiB to 4 GiB per GPU on every GPU, then the PyTorch
#               reference (bench/torch_allreduce.py) right after, on the same GPUs
# Logs and results go to ${OUT:-out}. The sweep takes two calls' worth of time on one GPU:
# SWEEP_PART=0 or all runs one half (default both).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device-common.sh "${1:-}" "${2:-}" sweep
gpus=$(nvidia-smi -L | grep -c '^GPU')

if [ "$mode" = sweep ]; then
  # Every GPU backend at its default sizes, with the default sweep's budget per entry.
  plugins='*_cuda,*_cublas,*_thrust,*_cupy,*_numba_cuda'
  for devices in ${SWEEP_PART:-0 all}; do
    started=$(date +%s.%N)
    "$runner" --plugin "$plugins" --max-time 1 --quiet --devices "$devices" \
      -o "$out/gpu-sweep-devices-$devices.json" > "$out/gpu-sweep-devices-$devices.log" 2>&1
    echo "--devices $devices: exit $?, $(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$started") s wall"
  done
  if [ -f "$out/gpu-sweep-devices-0.json" ] && [ -f "$out/gpu-sweep-devices-all.json" ]; then
    for device in $(seq 0 $((gpus - 1))); do
      echo "== runner compare, the entries GPU $device measured against --devices 0"
      "$runner" compare "$out/gpu-sweep-devices-0.json" "$out/gpu-sweep-devices-all.json" \
        --candidate-device "$device" | tail -2
    done
  fi
  exit 0
fi

if [ "$mode" = allreduce ]; then
  sizes=8388608,67108864,268435456,1073741824,4294967296
  "$runner" --plugin allreduce_nccl --devices all --sizes "$sizes" --min-time 0.5 --max-time 5 \
    -o "$out/allreduce-nccl-${gpus}gpu.json" > "$out/allreduce.log" 2>&1
  echo "allreduce_nccl: exit $?"
  python3 - "$out/allreduce-nccl-${gpus}gpu.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{'bytes/GPU':>12} {'median':>12} {'algbw GB/s':>11} {'busbw GB/s':>11} verified")
for e in d["entries"]:
    t = e.get("timing", {})
    med = t.get("compute", t.get("run", {})).get("median")
    m = {x["name"]: x["value"] for x in e.get("metrics", [])}
    if med:
        algbw = e["size"] / med / 1e9
        print(f"{e['size']:>12} {med * 1e6:>10.1f}us {algbw:>11.1f} {algbw * m.get('bus_factor', 0):>11.1f} "
              f"{e.get('verification', {}).get('passed')}")
    else:
        print(e["size"], e["status"], e["message"])
EOF
  python3 bench/torch_allreduce.py --sizes 8MiB,64MiB,256MiB,1GiB,4GiB --json "$out/torch-allreduce-${gpus}gpu.json"
  exit 0
fi
echo "device-issue16.sh: unknown mode '$mode' (sweep or allreduce)" >&2
exit 2
