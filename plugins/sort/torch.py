"""n keys ascending with PyTorch: torch.sort (keys=pairs: the values gathered by its indices) on the runner's stream."""
import types

import numpy as np
import torch

DEVICE = "cuda"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]

# Unsigned arrays travel as the signed type of their width (the same bits): PyTorch's CUDA
# sort and indexing do not take uint64 or uint32. Unsigned keys sort as the signed type with
# the sign bit flipped, which orders them as unsigned.
SIGNED = {np.dtype(np.uint64): np.int64, np.dtype(np.uint32): np.int32}
SIGN_BIT = {np.dtype(np.uint64): -(1 << 63), np.dtype(np.uint32): -(1 << 31)}


def as_tensor(array):
    return torch.from_numpy(array.view(SIGNED.get(array.dtype, array.dtype)))


def setup(ctx):
    s = types.SimpleNamespace(pairs="values" in ctx.outputs,
                              sign_bit=SIGN_BIT.get(ctx.inputs["keys"].dtype))
    s.device = torch.device("cuda", ctx.device)
    s.stream = torch.cuda.ExternalStream(ctx.stream, device=s.device)
    s.host_in = {name: as_tensor(array) for name, array in ctx.inputs.items()}
    s.host_out = {name: as_tensor(array) for name, array in ctx.outputs.items()}
    with torch.cuda.stream(s.stream):
        s.pristine = {name: torch.empty_like(t, device=s.device) for name, t in s.host_in.items()}
        s.working = {name: torch.empty_like(t, device=s.device) for name, t in s.host_out.items()}
    return s


def upload(s):
    with torch.cuda.stream(s.stream):
        for name, device in s.pristine.items():
            device.copy_(s.host_in[name], non_blocking=True)


def reset(s):  # run() sorts the working tensors in place: restore them from the input
    with torch.cuda.stream(s.stream):
        for name, working in s.working.items():
            working.copy_(s.pristine[name])


def run(s):
    keys = s.working["keys"]
    with torch.cuda.stream(s.stream):
        if s.sign_bit is not None:
            keys ^= s.sign_bit
        ordered, order = torch.sort(keys)
        keys.copy_(ordered ^ s.sign_bit if s.sign_bit is not None else ordered)
        if s.pairs:  # each value moves with its key
            values = s.working["values"]
            values.copy_(values[order])


def download(s):
    with torch.cuda.stream(s.stream):
        for name, working in s.working.items():
            s.host_out[name].copy_(working, non_blocking=True)
