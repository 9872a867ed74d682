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

NVLink multicast stays off in every process (the machines' notes say why).
"""
import argparse
import json
import os
import socket
import statistics
import sys

for variable in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
    os.environ[variable] = "0" if variable == "NCCL_NVLS_ENABLE" else "1"

UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "": 1}


def parse_size(text):
    for unit in ("KiB", "MiB", "GiB", ""):
        if text.endswith(unit) and text[:len(text) - len(unit)].isdigit():
            return int(text[:len(text) - len(unit)]) * UNITS[unit]
    raise argparse.ArgumentTypeError(f"'{text}' is not a size (8MiB, 4GiB, 1048576)")


def rank_main(rank, world, port, sizes, min_samples, min_time_s, batch, results):
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world, device_id=torch.device("cuda", rank))
    medians = {}
    for size in sizes:
        # float32 elements, as allreduce_nccl sums them (a tail of 1-3 bytes is left out here).
        tensor = torch.ones(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(5):  # warm-up: communicator, buffers, clocks
            dist.all_reduce(tensor)
        torch.cuda.synchronize()
        samples, spent = [], 0.0
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        while len(samples) < min_samples or spent < min_time_s:
            begin.record()
            for _ in range(batch):
                dist.all_reduce(tensor)
            end.record()
            end.synchronize()
            samples.append(begin.elapsed_time(end) / 1e3 / batch)
            spent += samples[-1] * batch
        medians[size] = statistics.median(samples)
        del tensor
        torch.cuda.empty_cache()
    gathered = [None] * world
    dist.all_gather_object(gathered, medians)
    if rank == 0:
        results.update({size: max(g[size] for g in gathered) for size in sizes})
    dist.destroy_process_group()


def worker(rank, world, port, sizes, min_samples, min_time_s, batch, out_path):
    results = {}
    rank_main(rank, world, port, sizes, min_samples, min_time_s, batch, results)
    if rank == 0:
        with open(out_path, "w") as handle:
            json.dump({str(size): t for size, t in results.items()}, handle)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8MiB,64MiB,256MiB,1GiB,4GiB",
                        help="bytes per GPU, comma-separated (8MiB, 1GiB, 1048576)")
    parser.add_argument("--gpus", type=int, default=0, help="GPUs (default: all)")
    parser.add_argument("--min-samples", type=int, default=20)
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds of samples per size")
    parser.add_argument("--batch", type=int, default=20, help="all-reduces per timed sample")
    parser.add_argument("--json", help="write the table here too")
    args = parser.parse_args()
    try:
        sizes = [parse_size(s.strip()) for s in args.sizes.split(",")]
    except argparse.ArgumentTypeError as error:
        sys.exit(f"torch_allreduce.py: error: {error}")
    import torch
    import torch.multiprocessing as mp
    world = args.gpus or torch.cuda.device_count()
    if world < 1 or world > torch.cuda.device_count():
        sys.exit(f"torch_allreduce.py: error: {world} GPUs asked, {torch.cuda.device_count()} found")
    with socket.socket() as probe:  # a free port for the rendezvous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out_path = f"/tmp/torch_allreduce_{os.getpid()}.json"
    mp.spawn(worker, args=(world, port, sizes, args.min_samples, args.min_time, args.batch, out_path),
             nprocs=world, join=True)
    with open(out_path) as handle:
        times = {int(size): t for size, t in json.load(handle).items()}
    os.remove(out_path)
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


if __name__ == "__main__":
    main()
