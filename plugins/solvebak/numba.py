"""SolveBak least squares by coordinate descent with Numba on the CPU: @njit(parallel=True), each block's dot products and residual update split over rows by prange."""
import types

import numba
import numpy as np

DEVICE = "cpu"
MAX_SIZE = 2000000
DEFAULT_SIZES = [1000, 10000, 100000]


@numba.njit(parallel=True)
def solve(x, y, x_x, e, a, iters, batch):
    obs, vars = x.shape  # x column-major: x[:, j] is contiguous
    da = np.empty(batch, dtype=x.dtype)
    a[:] = 0
    e[:] = y
    for _ in range(iters):
        for j0 in range(0, vars, batch):
            nb = min(batch, vars - j0)
            for b in range(nb):
                dot = x.dtype.type(0)
                for i in numba.prange(obs):
                    dot += x[i, j0 + b] * e[i]
                da[b] = dot / x_x[j0 + b]
            for i in numba.prange(obs):
                step = x.dtype.type(0)
                for b in range(nb):
                    step += da[b] * x[i, j0 + b]
                e[i] -= step
            for b in range(nb):
                a[j0 + b] += da[b]


def setup(ctx):
    numba.set_num_threads(min(ctx.threads, numba.config.NUMBA_NUM_THREADS))
    s = types.SimpleNamespace(host=ctx)
    s.x = ctx.inputs["xt"].T  # obs x vars, column-major
    s.e = np.empty_like(ctx.inputs["y"])
    s.iters = int(ctx.constants["iterations"])
    s.batch = int(ctx.constants["batch"])
    return s


def run(s):  # the first call compiles: the results' first_run shows the JIT time
    h = s.host
    solve(s.x, h.inputs["y"], h.inputs["x_x"], s.e, h.outputs["a"], s.iters, s.batch)
