"""c = a + b with PyTorch (torch.add into the result tensor; increment: c += 1 in place) on the runner's stream."""
import types

import torch

DEVICE = "cuda"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]


def setup(ctx):
    s = types.SimpleNamespace(add="b" in ctx.inputs)  # increment: no b
    s.device = torch.device("cuda", ctx.device)
    s.stream = torch.cuda.ExternalStream(ctx.stream, device=s.device)
    # Tensors over the bridge's page-locked arrays: copies to and from them are asynchronous.
    s.host = {name: torch.from_numpy(array) for name, array in {**ctx.inputs, **ctx.outputs}.items()}
    with torch.cuda.stream(s.stream):
        s.a = torch.empty_like(s.host["a"], device=s.device)
        s.b = torch.empty_like(s.host["b"], device=s.device) if s.add else None
        s.c = torch.empty_like(s.host["c"], device=s.device)
    return s


def upload(s):
    with torch.cuda.stream(s.stream):
        s.a.copy_(s.host["a"], non_blocking=True)
        if s.add:
            s.b.copy_(s.host["b"], non_blocking=True)


def reset(s):  # increment works in place on c: restore it from the pristine a
    if not s.add:
        with torch.cuda.stream(s.stream):
            s.c.copy_(s.a)


def run(s):
    with torch.cuda.stream(s.stream):
        if s.add:
            torch.add(s.a, s.b, out=s.c)
        else:
            s.c += 1


def download(s):
    with torch.cuda.stream(s.stream):
        s.host["c"].copy_(s.c, non_blocking=True)
