"""C = A @ B with PyTorch (torch.matmul: cuBLAS, float32 without TF32, as torch defaults) on the runner's stream."""
import types

import torch

DEVICE = "cuda"
MAX_SIZE = 32768
DEFAULT_SIZES = [64, 128, 256, 512, 1024, 2048, 4096]


def setup(ctx):
    s = types.SimpleNamespace()
    s.device = torch.device("cuda", ctx.device)
    s.stream = torch.cuda.ExternalStream(ctx.stream, device=s.device)
    s.host = {name: torch.from_numpy(array) for name, array in {**ctx.inputs, **ctx.outputs}.items()}
    with torch.cuda.stream(s.stream):
        s.a, s.b, s.c = (torch.empty_like(s.host[name], device=s.device) for name in "abc")
    return s


def upload(s):
    with torch.cuda.stream(s.stream):
        s.a.copy_(s.host["a"], non_blocking=True)
        s.b.copy_(s.host["b"], non_blocking=True)


def run(s):
    with torch.cuda.stream(s.stream):
        torch.matmul(s.a, s.b, out=s.c)


def download(s):
    with torch.cuda.stream(s.stream):
        s.host["c"].copy_(s.c, non_blocking=True)
