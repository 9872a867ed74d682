#!/usr/bin/env python3
"""gpubench's GPU and host time per run() against cupyx.profiler.benchmark, same scripts, one machine.

Each entry is BACKEND:SIZE (vecadd_cupy:100000000, mandelbrot_numba_cuda:4096). The backend's
script, plugins/<workload>/<script>.py, is set up as bench/cupy_events.py does (its inputs
page-locked and uploaded on a stream of its own) and its run() timed by CuPy's own
cupyx.profiler.benchmark: an event on the idle stream, the call, an event, a wait; its CPU
time is the call's host time. Against a runner results file of the same entries, it prints
gpubench's median run() (the stream held while run() enqueues, so device work alone) and its
host time per call (timing.run_host: calls back to back; timing.run_host_in_cycle beside it,
the sampled calls, each after its cycle's upload). Goals: the GPU times within 3%, and
gpubench's host time per call at most cupyx's CPU time + 10 us. Exit 1 when one misses either.

cupyx's span starts before the call, so it also holds the host's path to the first kernel:
at sizes where that is not small against the work, gpubench's held time is the lower one by
about that path. sort's run() sorts in place: it is timed as reset+run pairs minus resets
alone, both by cupyx, as gpubench's per-launch timing does (sorted keys sort faster).

    python3 bench/cupyx_benchmark.py --results r.json vecadd_cupy:100000000 matmul_cupy:4096

Run by build/bin/embedded_python (cupy,numpy as its first argument), cupyx times the scripts
in the interpreter the bridge embeds: the shared libpython, which distributions build apart
from python3 and which runs Python code slower. The difference between the two passes is the
interpreter's build; what gpubench's host time exceeds the second by is the bridge's own.
"""
import argparse
import json
import os
import statistics
import sys

import cupy as cp
import cupyx.profiler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cupy_events  # noqa: E402  (the scripts' set-up, shared)


def gpubench_medians(path):
    """(plugin, size) -> (median run() time, median host time per call or None, stream_hold,
    median host time in the sampled cycles or None), ok entries."""
    with open(path) as f:
        results = json.load(f)
    medians = {}
    for e in results.get("entries", []):
        timing = e.get("timing", {})
        if e.get("status") == "ok" and "median" in timing.get("run", {}):
            host = timing.get("run_host", {}).get("median")
            in_cycle = timing.get("run_host_in_cycle", {}).get("median")
            medians[(e["plugin"], e["size"])] = (timing["run"]["median"], host,
                                                 timing.get("stream_hold", ""), in_cycle)
    return medians


def time_with_cupyx(backend, size, min_time_s):
    workload, _, script_name = backend.partition("_")
    script, state, stream, close = cupy_events.open_script(workload, size, script_name)
    with stream:
        for _ in range(3):  # warm-up: kernels compiled, pools filled, clocks up
            script.run(state)
        stream.synchronize()
        # Of these workloads only sort's run() changes its own input (vecadd's reset() is for
        # variant=increment, which the bench does not use).
        reset = script.reset if workload == "sort" else None

        def medians(function):
            result = cupyx.profiler.benchmark(function, (state,), n_warmup=3, n_repeat=100000,
                                              max_duration=min_time_s)
            return (statistics.median(result.gpu_times[0]), statistics.median(result.cpu_times),
                    len(result.cpu_times))

        if reset:
            gpu, cpu, count = medians(lambda s: (reset(s), script.run(s)))
            reset_gpu, reset_cpu, _ = medians(reset)
            gpu, cpu = gpu - reset_gpu, cpu - reset_cpu
        else:
            gpu, cpu, count = medians(script.run)
    close()
    return gpu, cpu, count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("entries", nargs="+", help="backend:size, e.g. vecadd_cupy:100000000")
    parser.add_argument("--results", required=True, action="append",
                        help="a runner results file with the entries (repeatable)")
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds cupyx times each")
    parser.add_argument("--no-header", action="store_true",
                        help="rows only (to append to an earlier call's table)")
    args = parser.parse_args()
    ours = {}
    for path in args.results:
        ours.update(gpubench_medians(path))
    missed = False
    # python3 runs its executable's interpreter; embedded_python the shared libpython that the
    # bridge embeds (built apart, often slower): say which one this is.
    embedded = os.path.basename(sys.executable) == "embedded_python"
    if not args.no_header:
        print("cupyx run by %s (Python %s%s)" % (
            sys.executable, sys.version.split()[0],
            ", the bridge's shared libpython" if embedded else ""))
        print("%-24s %11s %14s %14s %9s %14s %14s %14s  %s" % (
            "BACKEND", "SIZE", "CUPYX GPU", "GPUBENCH GPU", "DIFF", "CUPYX CPU", "GPUBENCH HOST",
            "IN CYCLE", "GOALS (GPU <= 3%, HOST <= CPU + 10 us)"))
    for entry in args.entries:
        backend, _, size_text = entry.partition(":")
        size = int(float(size_text))
        gpu, cpu, count = time_with_cupyx(backend, size, args.min_time)
        if (backend, size) not in ours:
            print("%-24s %11d %11.3f us %14s  (no ok entry in the results)" % (
                backend, size, gpu * 1e6, "-"))
            missed = True
            continue
        run, host, hold, in_cycle = ours[(backend, size)]
        difference = run / gpu - 1
        ok = abs(difference) <= 0.03
        host_ok = host is not None and host <= cpu + 10e-6
        missed |= not (ok and host_ok)

        def us(seconds):
            return "%11.3f us" % (seconds * 1e6) if seconds is not None else "-"

        print("%-24s %11d %14s %14s %+8.2f%% %14s %14s %14s  %s, %s (n=%d%s)" % (
            backend, size, us(gpu), us(run), difference * 100, us(cpu), us(host), us(in_cycle),
            "met" if ok else "MISSED", "met" if host_ok else "MISSED", count,
            "" if hold == "held" else "; " + (hold or "no hold")))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
