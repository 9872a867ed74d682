"""c = a + b with NumPy (np.add into the result array; variant=increment: c += 1 in place)."""
import numpy as np

DEVICE = "cpu"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]


def setup(ctx):
    ctx.add = "b" in ctx.inputs  # increment has no b: it works on c, a copy of a
    return ctx


def reset(ctx):
    if not ctx.add:
        np.copyto(ctx.outputs["c"], ctx.inputs["a"])


def run(ctx):
    c = ctx.outputs["c"]
    if ctx.add:
        np.add(ctx.inputs["a"], ctx.inputs["b"], out=c)
    else:
        c += 1
