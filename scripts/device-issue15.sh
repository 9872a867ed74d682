#!/usr/bin/env bash
# Issue 15 on a GPU machine over a carried build folder (default build-device):
#   tests   every test (ctest -j4), then the list of plugins
#   sweeps  one sweep of GPU and CPU plugins three ways: plain, --devices all, and two shards
#           under mpirun -np 2 (--shard auto) merged; each must hold the same entries. Then
#           allreduce_nccl over every GPU from 8 MiB to 1 GiB per GPU, with its report.
# Logs and results go to ${OUT:-out}.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device-common.sh "${1:-}" "${2:-}" tests

if [ "$mode" = tests ]; then
  run_ctest "$build/tests"  # the tests folder alone: the whole build folder is over 64 MiB
  exit 0
fi

# The same entries three ways (CPU entries among them: they run alone under --devices).
sweep="--plugin vecadd_cuda,vecadd_cublas,sort_cuda,sort_thrust,matmul_cublas,matmul_cuda,vecadd_cupy,vecadd_omp"
sweep="$sweep --sizes 4096,1048576 --min-time 0.05 --max-time 0.3 --quiet"
started=$(date +%s.%N)
"$runner" $sweep -o "$out/plain.json" > "$out/plain.log" 2>&1; echo "plain: exit $?"
"$runner" $sweep --devices all -o "$out/devices-all.json" > "$out/devices-all.log" 2>&1; echo "--devices all: exit $?"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun -np 2 --oversubscribe --bind-to none sh -c \
  "exec $runner --shard auto $sweep -o $out/shard-\$OMPI_COMM_WORLD_RANK.json" > "$out/mpirun.log" 2>&1
echo "mpirun -np 2: exit $?"
"$runner" merge "$out"/shard-0.json "$out"/shard-1.json --output "$out/merged.json" > "$out/merge.log" 2>&1
echo "merge: exit $?"
python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
def entries(name):
    d = json.load(open(f"{out}/{name}"))
    return d, {(e["plugin"], e["size"], e["params"], e["seed"]): (e["status"], e["flags"], e["message"][:80])
               for e in d["entries"]}
plain, want = entries("plain.json")
print(f"plain: {len(want)} entries, statuses {sorted(set(v[0] for v in want.values()))}")
for name in ("devices-all.json", "merged.json"):
    d, got = entries(name)
    print(f"{name}: {len(got)} entries, the same entries as plain: {sorted(got) == sorted(want)}")
    for key in sorted(set(got) & set(want)):
        if got[key][0] != want[key][0] or "gpu_shared" in got[key][1]:
            print("  ", key[:2], "plain:", want[key], name + ":", got[key])
    devices = {(x["index"], x.get("name"), x.get("uuid"), x.get("pci_bus_id"))
               for e in d["entries"] for x in e.get("devices", [])}
    print("  devices recorded:", devices)
d = json.load(open(f"{out}/merged.json"))
print("merged shards:", [(s["index"], s["source"], s["gpu"].get("name")) for s in d["merged"]["shards"]],
      "missing:", d["merged"]["missing"])
EOF

"$runner" --plugin allreduce_nccl --devices all --sizes 8388608,67108864,268435456,1073741824 \
  --min-time 0.2 --max-time 2 -o "$out/allreduce.json" > "$out/allreduce.log" 2>&1
echo "allreduce_nccl: exit $?"
cat "$out/allreduce.log"
python3 - "$out/allreduce.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["entries"]:
    t, m = e.get("timing", {}), {x["name"]: x["value"] for x in e.get("metrics", [])}
    med = t.get("compute", t.get("run", {})).get("median")
    print(e["plugin"], e["size"], e["status"], e.get("verification", {}).get("passed"),
          "median_s", med, "algbw GB/s", e["size"] / med / 1e9 if med else None,
          "devices", [x["index"] for x in e.get("devices", [])], m)
EOF
python3 -c "import sys, time; print(f\"elapsed {time.time() - float(sys.argv[1]):.0f} s\")" "$started"
