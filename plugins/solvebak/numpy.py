"""SolveBak least squares by coordinate descent with NumPy, as the CuPy notebook writes it: np.dot per column (batch=1) or per block of columns."""
import types

import numpy as np

DEVICE = "cpu"
MAX_SIZE = 2000000
DEFAULT_SIZES = [1000, 10000, 100000]


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.x = ctx.inputs["xt"].T  # obs x vars, column-major: x[:, j] is contiguous
    s.y = ctx.inputs["y"]
    s.x_x = ctx.inputs["x_x"]  # |X_j|^2
    s.aa = ctx.outputs["a"]
    s.e = np.empty_like(s.y)
    s.iters = int(ctx.constants["iterations"])
    s.batch = int(ctx.constants["batch"])
    return s


def run(s):
    x, x_x, aa, e = s.x, s.x_x, s.aa, s.e
    vars = x.shape[1]
    aa[:] = 0
    e[:] = s.y  # e = y - X a with a = 0
    if s.batch == 1:
        for i in range(s.iters):
            for j in range(vars):
                da = np.dot(x[:, j], e) / x_x[j]
                e -= da * x[:, j]
                aa[j] += da
    else:
        BATCH = s.batch
        for i in range(s.iters):
            for j in range(0, vars, BATCH):
                # here we apply dot product for matrices instead of vectors
                da = np.dot(x[:, j:j+BATCH].T, e) / x_x[j:j+BATCH]
                e -= np.sum(da * x[:, j:j+BATCH], axis=1)
                aa[j:j+BATCH] += da
