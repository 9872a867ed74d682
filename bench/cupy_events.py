#!/usr/bin/env python3
"""The Python bridge's overhead: the same CuPy calls timed outside gpubench, with CuPy's events.

Loads a workload's cupy.py (the very script matmul_cupy.so / vecadd_cupy.so embed), calls its
setup() on a stream of its own, then times run() alone with cp.cuda.Event around each call on
that stream, as a CuPy user would time it. The host arrays are page-locked, as the bridge
registers them. --protocol phases (the default) repeats the runner's sample exactly: upload,
run and download, each waited for before the next, so run() starts on an idle stream, with only
run() between the events; cycle queues the three without waiting between them; back-to-back
runs run() alone, again and again. With --results (a runner results file
of the same entries), prints both medians and the difference; the goal is at most 3% more
through the bridge at >= 1 ms and at most 5 us more per call below. Exit 1 when a goal is missed.

    python3 bench/cupy_events.py --results results/h100-python-bridge.json \
        matmul:4096 matmul:1024 vecadd:100000000 vecadd:1000
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import types

import cupy as cp
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "sdk", "python"))
import bridge_helper  # noqa: E402

bridge_helper._compatible_numpy()  # as the bridge does: numba-cuda's kernels compile


def inputs_of(workload, size, rng):
    """Host inputs, outputs and constants shaped as the workload's C++ half makes them (the values
    matter only where the work depends on them: logreg's labels, mandelbrot's frame)."""
    if workload == "matmul":
        a, b = (rng.random((size, size), dtype=np.float32) * 2 - 1 for _ in range(2))
        return {"a": a, "b": b}, {"c": np.empty((size, size), np.float32)}, {}
    if workload == "vecadd":
        a, b = (rng.random(size, dtype=np.float32) * 2 - 1 for _ in range(2))  # in (-1, 1) as gpubench's
        return {"a": a, "b": b}, {"c": np.empty(size, np.float32)}, {}
    if workload == "sort":  # float32 keys; run() sorts the working copy in place
        keys = rng.random(size, dtype=np.float32)
        return {"keys": keys}, {"keys": keys.copy()}, {}
    if workload == "logreg":  # n x 785 features (pixel / 255, bias 1), labels 0..9
        x = rng.random((size, 785), dtype=np.float32)
        x[:, 784] = 1
        labels = rng.integers(0, 10, size, dtype=np.uint8)
        return ({"x": x, "labels": labels}, {"theta": np.empty((785, 10), np.float32)},
                {"iterations": 100, "lr": 0.1})
    if workload == "mandelbrot":  # H x 1.5H of [-2, 1] x [-1, 1], 20 iterations, float64
        height, width = size, size * 3 // 2
        return ({}, {"image": np.empty((height, width), np.uint16)},
                {"min_x": -2.0, "min_y": -1.0, "step_x": 3.0 / width, "step_y": 2.0 / height,
                 "width": width, "height": height, "iterations": 20, "float_bits": 64})
    raise SystemExit("cupy_events.py: error: no inputs known for workload '%s'" % workload)


def open_script(workload, size, script_name="cupy", blocking=True):
    """The workload's script (plugins/<workload>/<script_name>.py) set up on a CuPy stream of its
    own, its inputs uploaded: (script, state, stream, close)."""
    path = os.path.join(ROOT, "plugins", workload, script_name + ".py")
    spec = importlib.util.spec_from_file_location("bench_%s_%s" % (workload, script_name), path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    stream = cp.cuda.Stream(non_blocking=not blocking)  # the runner's: cudaStreamCreate, blocking
    inputs, outputs, constants = inputs_of(workload, size, np.random.default_rng(42))
    arrays = list(inputs.values()) + list(outputs.values())
    for array in arrays:  # pinned, as in the bridge
        cp.cuda.runtime.hostRegister(array.ctypes.data, array.nbytes, 0)
    ctx = types.SimpleNamespace(size=size, seed=42, threads=1, device=0, stream=stream.ptr,
                                params={}, inputs=inputs, outputs=outputs, constants=constants)
    state = script.setup(ctx)
    if hasattr(script, "upload"):  # an output-only workload (mandelbrot) has none
        script.upload(state)

    def close():
        stream.synchronize()
        for array in arrays:
            cp.cuda.runtime.hostUnregister(array.ctypes.data)

    return script, state, stream, close


def time_script(workload, size, min_time_s, min_samples, protocol, blocking):
    script, state, stream, close = open_script(workload, size, "cupy", blocking)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    samples = []
    for _ in range(3):  # warm-up: kernels compiled, pools filled, clocks up
        script.run(state)
    stream.synchronize()
    cycle = protocol in ("cycle", "phases")
    # phases: each phase waited for on its own, as the runner's sample does (upload, then run
    # on an idle stream, then download); cycle: the three queued back to back.
    apart = protocol == "phases"
    while len(samples) < min_samples or sum(samples) < min_time_s:
        if cycle:
            script.upload(state)
            if apart:
                stream.synchronize()
        start.record(stream)
        script.run(state)
        end.record(stream)
        if apart:
            end.synchronize()
        if cycle:
            script.download(state)
        end.synchronize()
        if apart:
            stream.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
        if len(samples) >= 100000:
            break
    close()
    return statistics.median(samples), len(samples)


def bridge_medians(path):
    """(plugin, size) -> the runner's median single-launch run() time, from a results file."""
    with open(path) as f:
        results = json.load(f)
    medians = {}
    for e in results.get("entries", []):
        run = e.get("timing", {}).get("run") or {}
        if e.get("status") == "ok" and "median" in run:  # each call between two events
            medians[(e["plugin"], e["size"])] = run["median"]
    return medians


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("entries", nargs="+", help="workload:size, e.g. matmul:4096")
    parser.add_argument("--results", help="a runner results file with the same entries")
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds of samples per entry")
    parser.add_argument("--min-samples", type=int, default=50)
    parser.add_argument("--protocol", choices=["phases", "cycle", "back-to-back"], default="phases")
    parser.add_argument("--stream", choices=["blocking", "non-blocking"], default="blocking")
    args = parser.parse_args()
    bridge = bridge_medians(args.results) if args.results else {}
    missed = False
    print("protocol:", args.protocol, "stream:", args.stream)
    print("%-10s %12s %14s %14s %12s  %s" % ("WORKLOAD", "SIZE", "CUPY EVENTS", "BRIDGE", "DIFFERENCE", "GOAL"))
    for entry in args.entries:
        workload, _, size_text = entry.partition(":")
        size = int(size_text)
        alone, count = time_script(workload, size, args.min_time, args.min_samples, args.protocol,
                                   args.stream == "blocking")
        through = bridge.get((workload + "_cupy", size))
        if through is None:
            print("%-10s %12d %11.3f us %14s %12s  (n=%d)" % (workload, size, alone * 1e6, "-", "-", count))
            continue
        if alone >= 1e-3:
            ok = through <= alone * 1.03
            goal = "<= 3%: " + ("met" if ok else "MISSED")
            difference = "%+.2f%%" % ((through / alone - 1) * 100)
        else:
            ok = through - alone <= 5e-6
            goal = "<= 5 us: " + ("met" if ok else "MISSED")
            difference = "%+.2f us" % ((through - alone) * 1e6)
        missed |= not ok
        print("%-10s %12d %11.3f us %11.3f us %12s  %s (n=%d)" %
              (workload, size, alone * 1e6, through * 1e6, difference, goal, count))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
