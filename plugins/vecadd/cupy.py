"""c = a + b with CuPy (cp.add into the result array; increment: c += 1 in place) on the runner's stream."""
import types

import cupy as cp

DEVICE = "cuda"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]


def setup(ctx):
    s = types.SimpleNamespace(host=ctx, add="b" in ctx.inputs)  # increment: no b
    s.stream = cp.cuda.ExternalStream(ctx.stream)  # kept alive as long as the instance
    with s.stream:
        s.a = cp.empty_like(ctx.inputs["a"])
        s.b = cp.empty_like(ctx.inputs["b"]) if s.add else None
        s.c = cp.empty_like(ctx.outputs["c"])
    return s


def upload(s):
    with s.stream:
        s.a.set(s.host.inputs["a"])
        if s.add:
            s.b.set(s.host.inputs["b"])


def reset(s):  # increment works in place on c: restore it from the pristine a
    if not s.add:
        with s.stream:
            cp.copyto(s.c, s.a)


def run(s):
    with s.stream:
        if s.add:
            cp.add(s.a, s.b, out=s.c)
        else:
            s.c += 1


def download(s):
    with s.stream:
        s.c.get(out=s.host.outputs["c"])
