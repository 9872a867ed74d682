"""SolveBak least squares by coordinate descent with PyTorch, as the notebook writes it with CuPy: torch.dot per column (batch=1) or a product per block of columns, on the runner's stream."""
import types

import torch

DEVICE = "cuda"
MAX_SIZE = 4000000
DEFAULT_SIZES = [1000, 10000, 100000, 1000000]


def setup(ctx):
    s = types.SimpleNamespace()
    s.device = torch.device("cuda", ctx.device)
    s.stream = torch.cuda.ExternalStream(ctx.stream, device=s.device)
    s.iters = int(ctx.constants["iterations"])
    s.batch = int(ctx.constants["batch"])
    s.host = {name: torch.from_numpy(array) for name, array in {**ctx.inputs, **ctx.outputs}.items()}
    with torch.cuda.stream(s.stream):
        s.xt = torch.empty_like(s.host["xt"], device=s.device)  # vars x obs: row j is column X_j
        s.y = torch.empty_like(s.host["y"], device=s.device)
        s.x_x = torch.empty_like(s.host["x_x"], device=s.device)  # |X_j|^2
        s.aa = torch.empty_like(s.host["a"], device=s.device)
        s.e = torch.empty_like(s.host["y"], device=s.device)
    return s


def upload(s):
    with torch.cuda.stream(s.stream):
        for name in ("xt", "y", "x_x"):
            getattr(s, name).copy_(s.host[name], non_blocking=True)


def run(s):
    with torch.cuda.stream(s.stream):
        xt, x_x, aa, e = s.xt, s.x_x, s.aa, s.e  # xt[j] is column X_j, contiguous
        aa.zero_()
        e.copy_(s.y)  # e = y - X a with a = 0
        for _ in range(s.iters):
            for j in range(0, xt.shape[0], s.batch):
                block = xt[j:j + s.batch]
                da = (block @ e) / x_x[j:j + s.batch]
                e -= da @ block
                aa[j:j + s.batch] += da


def download(s):
    with torch.cuda.stream(s.stream):
        s.host["a"].copy_(s.aa, non_blocking=True)
