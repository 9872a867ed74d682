#!/usr/bin/env python3
"""The reference for allreduce_nccl: PyTorch's torch.distributed all-reduce (NCCL backend)
across the GPUs of this machine, one process per GPU, timed with CUDA events.

Reported as nccl-tests defines it (and as allreduce_nccl reports it): size = bytes per GPU,
algorithm bandwidth = size / time, bus bandwidth = algbw * 2(n-1)/n. A sample is one
all-reduce; each rank times its own with CUDA events, and a size's time is the longest of
the ranks' medians (as the runner's timer across devices takes the longest span). As in
nccl-tests, a sample times --batch all-reduces back to back between one pair of events and
divides, so that Python's own time per call (tens of microseconds) is not counted while the
GPUs are busy. On one GPU torch's (in-place) all-reduce does no work: compare on 2 or more.

    python3 bench/torch_allreduce.py --sizes 8MiB,256MiB,4GiB [--gpus N] [--json FILE]

Each rank is a process of its own (started as torchrun starts them, with RANK, WORLD_SIZE and
MASTER_ADDR/PORT) and writes its medians to a file as soon as it has them, before it tears its
process group down. So a rank that hangs shows where (each step is printed to stderr as it
begins), and --timeout bounds the whole run: results already written are kept, ranks still
running are stopped, and the exit status is 1 if any rank's results are missing.

NVLink multicast stays off in every process (the machines' notes say why).
"""
import argparse
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
os.environ.update(NO_MULTICAST)

UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "": 1}


def parse_size(text):
    for unit in ("KiB", "MiB", "GiB", ""):
        if text.endswith(unit) and text[:len(text) - len(unit)].isdigit():
            return int(text[:len(text) - len(unit)]) * UNITS[unit]
    raise argparse.ArgumentTypeError(f"'{text}' is not a size (8MiB, 4GiB, 1048576)")


def step(rank, text):
    print(f"rank {rank}: {text}", file=sys.stderr, flush=True)


def rank_main(args, sizes):
    """One rank: its medians per size, written to --rank-file before the group is torn down."""
    import datetime
    import torch
    import torch.distributed as dist
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(rank)
    step(rank, "init_process_group")
    dist.init_process_group("nccl", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=args.timeout),
                            **({"device_id": torch.device("cuda", rank)} if args.eager_init else {}))
    medians = {}
    for size in sizes:
        step(rank, f"{size} bytes: warm-up")
        # float32 elements, as allreduce_nccl sums them (a tail of 1-3 bytes is left out here).
        tensor = torch.ones(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(5):  # warm-up: communicator, buffers, clocks
            dist.all_reduce(tensor)
        torch.cuda.synchronize()
        if tensor[0].item() != world ** 5:  # each all-reduce sums the ranks' tensors in place
            sys.exit(f"torch_allreduce.py: rank {rank}: wrong sum {tensor[0].item()} after 5 all-reduces of ones")
        step(rank, f"{size} bytes: timing")
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def sample():
            begin.record()
            for _ in range(args.batch):
                dist.all_reduce(tensor)
            end.record()
            end.synchronize()
            return begin.elapsed_time(end) / 1e3 / args.batch

        samples = [sample()]
        # Every rank must make the same calls, or one rank's all-reduces meet another's of the
        # next size: the number of samples is agreed, the most any rank's --min-time needs.
        wanted = max(args.min_samples, math.ceil(args.min_time / (samples[0] * args.batch)))
        agreed = torch.tensor([wanted], dtype=torch.int64, device="cuda")
        dist.all_reduce(agreed, op=dist.ReduceOp.MAX)
        samples += [sample() for _ in range(int(agreed.item()) - 1)]
        medians[size] = statistics.median(samples)
        del tensor
        torch.cuda.empty_cache()
    with open(args.rank_file, "w") as handle:
        json.dump({str(size): t for size, t in medians.items()}, handle)
    step(rank, "results written; destroy_process_group")
    dist.destroy_process_group()
    step(rank, "done")


def run_ranks(args, world):
    """Starts one process per GPU and waits for each one's results: {rank: {size: median}}."""
    with socket.socket() as probe:  # a free port for the rendezvous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder = tempfile.mkdtemp(prefix="torch_allreduce_")
    ranks = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        rank_file = os.path.join(folder, f"rank-{rank}.json")
        command = [sys.executable, os.path.abspath(__file__), "--rank-file", rank_file] + sys.argv[1:]
        ranks.append((subprocess.Popen(command, env=env), rank_file))
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline and not all(os.path.exists(f) or p.poll() is not None for p, f in ranks):
        time.sleep(0.2)
    grace = time.monotonic() + 10  # to tear the process group down once the results are in
    while time.monotonic() < min(deadline, grace) and any(p.poll() is None for p, _ in ranks):
        time.sleep(0.2)
    results = {}
    for rank, (process, rank_file) in enumerate(ranks):
        if process.poll() is None:
            process.kill()
            print(f"torch_allreduce.py: rank {rank} still running after "
                  f"{'its results' if os.path.exists(rank_file) else f'{args.timeout} s'}: stopped", file=sys.stderr)
        if os.path.exists(rank_file):
            with open(rank_file) as handle:
                results[rank] = {int(size): t for size, t in json.load(handle).items()}
            os.remove(rank_file)
    os.rmdir(folder)
    return results


def report(args, sizes, world, results):
    import torch
    times = {size: max(r[size] for r in results.values()) for size in sizes}
    factor = 2 * (world - 1) / world
    rows = []
    print(f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, "
          f"{world} x {torch.cuda.get_device_name(0)}")
    print(f"{'bytes/GPU':>12} {'median':>12} {'algbw GB/s':>11} {'busbw GB/s':>11}")
    for size in sizes:
        t = times[size]
        algbw = size / t / 1e9
        rows.append({"size": size, "median_s": t, "algbw_gb_s": algbw, "busbw_gb_s": algbw * factor})
        print(f"{size:>12} {t * 1e6:>10.1f}us {algbw:>11.1f} {algbw * factor:>11.1f}")
    if world == 1:
        print("note: on one GPU the in-place all-reduce does no work: these are not bandwidths")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"gpus": world, "device": torch.cuda.get_device_name(0),
                       "torch": torch.__version__, "rows": rows}, handle, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8MiB,64MiB,256MiB,1GiB,4GiB",
                        help="bytes per GPU, comma-separated (8MiB, 1GiB, 1048576)")
    parser.add_argument("--gpus", type=int, default=0, help="GPUs (default: all)")
    parser.add_argument("--min-samples", type=int, default=20)
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds of samples per size")
    parser.add_argument("--batch", type=int, default=20, help="all-reduces per timed sample")
    parser.add_argument("--timeout", type=float, default=300, help="seconds the whole run may take")
    parser.add_argument("--eager-init", action="store_true",
                        help="create each rank's communicator in init_process_group (device_id), not at the first call")
    parser.add_argument("--json", help="write the table here too")
    parser.add_argument("--rank-file", help=argparse.SUPPRESS)  # set for the ranks this starts
    args = parser.parse_args()
    try:
        sizes = [parse_size(s.strip()) for s in args.sizes.split(",")]
    except argparse.ArgumentTypeError as error:
        sys.exit(f"torch_allreduce.py: error: {error}")
    if args.rank_file:
        return rank_main(args, sizes)
    import torch
    world = args.gpus or torch.cuda.device_count()
    if world < 1 or world > torch.cuda.device_count():
        sys.exit(f"torch_allreduce.py: error: {world} GPUs asked, {torch.cuda.device_count()} found")
    results = run_ranks(args, world)
    if len(results) < world:
        sys.exit(f"torch_allreduce.py: error: {world - len(results)} of {world} ranks gave no results "
                 "(their last step is above)")
    report(args, sizes, world, results)


if __name__ == "__main__":
    main()
