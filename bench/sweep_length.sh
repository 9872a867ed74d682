#!/usr/bin/env bash
# How a sweep's cost grows with its length: one CPU plugin (vecadd_naive) at N sizes from 10
# (its minimum), one sample each, for each N given (default 200 1000 3000). Prints, per N, the
# wall time and the time per entry, the runner's own CPU time per entry (its process alone,
# not its worker's: read from /proc until it exits) and the results file's size, then the
# runner's CPU time per entry at the largest N over that at the smallest: about 1 when its
# own work per entry does not grow with the sweep (it grew with it while each entry rewrote
# the whole results file). Wall times follow the machine's load and its disk's fsync.
#   bench/sweep_length.sh [BUILD_FOLDER] [N...]     (default build-device)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
shift $(( $# > 0 ))
python=$(sdk/python/find-python.sh) || exit 1
"$python" - "$build/bin/runner" "$@" <<'PY'
import os, subprocess, sys, tempfile, time

runner, lengths = sys.argv[1], [int(n) for n in sys.argv[2:]] or [200, 1000, 3000]
ticks = os.sysconf("SC_CLK_TCK")

def own_cpu_s(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime, children excluded

print(f"{'entries':>8} {'wall_s':>8} {'wall_ms/entry':>14} {'runner_cpu_ms/entry':>20} {'results_MB':>11}")
per_entry = []
with tempfile.TemporaryDirectory() as scratch:
    for n in lengths:
        out = os.path.join(scratch, f"sweep-{n}.json")
        began = time.monotonic()
        sweep = subprocess.Popen([runner, "--plugin", "vecadd_naive", "--sizes", f"10..{n + 9}:+1",
                                  "--min-samples", "1", "--max-samples", "1", "--min-time", "0",
                                  "--warmup", "0", "-q", "-o", out],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cpu_s = 0.0
        while sweep.poll() is None:
            try:
                cpu_s = own_cpu_s(sweep.pid)
            except (OSError, IndexError, ValueError):
                pass  # it is exiting
            time.sleep(0.02)
        wall_s = time.monotonic() - began
        if sweep.returncode not in (0, 1):
            sys.exit(f"runner exited with status {sweep.returncode} at {n} entries")
        per_entry.append(cpu_s / n)
        print(f"{n:>8} {wall_s:>8.2f} {wall_s * 1000 / n:>14.3f} {cpu_s * 1000 / n:>20.3f} "
              f"{os.path.getsize(out) / 1e6:>11.2f}")
print(f"runner CPU time per entry, longest sweep over shortest: {per_entry[-1] / per_entry[0]:.2f}")
PY
