"""C = A @ B with CuPy (cp.matmul: cuBLAS, default math mode) on the runner's stream."""
import types

import cupy as cp

DEVICE = "cuda"
MAX_SIZE = 32768
DEFAULT_SIZES = [64, 128, 256, 512, 1024, 2048, 4096]


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.stream = cp.cuda.ExternalStream(ctx.stream)  # kept alive as long as the instance
    with s.stream:
        s.a = cp.empty_like(ctx.inputs["a"])
        s.b = cp.empty_like(ctx.inputs["b"])
        s.c = cp.empty_like(ctx.outputs["c"])
    return s


def upload(s):
    with s.stream:
        s.a.set(s.host.inputs["a"])
        s.b.set(s.host.inputs["b"])


def run(s):
    with s.stream:
        cp.matmul(s.a, s.b, out=s.c)


def download(s):
    with s.stream:
        s.c.get(out=s.host.outputs["c"])
