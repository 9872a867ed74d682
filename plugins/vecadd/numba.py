"""c = a + b with Numba on the CPU: an @njit(parallel=True) loop over prange (increment: a[i] += 1)."""
import numba
import numpy as np

DEVICE = "cpu"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]


@numba.njit(parallel=True)
def add(a, b, c):
    for i in numba.prange(c.size):
        c[i] = a[i] + b[i]


@numba.njit(parallel=True)
def increment(a):
    for i in numba.prange(a.size):
        a[i] += 1


def setup(ctx):
    numba.set_num_threads(min(ctx.threads, numba.config.NUMBA_NUM_THREADS))
    ctx.add = "b" in ctx.inputs  # increment has no b: it works on c, a copy of a
    return ctx


def reset(ctx):
    if not ctx.add:
        np.copyto(ctx.outputs["c"], ctx.inputs["a"])


def run(ctx):  # the first call compiles: the results' first_run shows the JIT time
    if ctx.add:
        add(ctx.inputs["a"], ctx.inputs["b"], ctx.outputs["c"])
    else:
        increment(ctx.outputs["c"])
