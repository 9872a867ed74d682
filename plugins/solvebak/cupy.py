"""SolveBak least squares by coordinate descent with CuPy, as the notebook writes it: cp.dot per column (batch=1) or per block of columns, on the runner's stream."""
import types

import cupy as cp

DEVICE = "cuda"
MAX_SIZE = 4000000
DEFAULT_SIZES = [1000, 10000, 100000, 1000000]


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.stream = cp.cuda.ExternalStream(ctx.stream)  # kept alive as long as the instance
    s.iters = int(ctx.constants["iterations"])
    s.batch = int(ctx.constants["batch"])
    with s.stream:
        s.xt = cp.empty_like(ctx.inputs["xt"])  # vars x obs: row j is column X_j
        s.y = cp.empty_like(ctx.inputs["y"])
        s.x_x = cp.empty_like(ctx.inputs["x_x"])  # |X_j|^2
        s.aa = cp.empty_like(ctx.outputs["a"])
        s.e = cp.empty_like(ctx.inputs["y"])
    return s


def upload(s):
    with s.stream:
        s.xt.set(s.host.inputs["xt"])
        s.y.set(s.host.inputs["y"])
        s.x_x.set(s.host.inputs["x_x"])


def run(s):
    with s.stream:
        x, x_x, aa, e = s.xt.T, s.x_x, s.aa, s.e  # x: obs x vars, x[:, j] contiguous
        vars = x.shape[1]
        aa.fill(0)
        e[...] = s.y  # e = y - X a with a = 0
        if s.batch == 1:
            for i in range(s.iters):
                for j in range(vars):
                    da = cp.dot(x[:, j], e) / x_x[j]
                    e -= da * x[:, j]
                    aa[j] += da
        else:
            BATCH = s.batch
            for i in range(s.iters):
                for j in range(0, vars, BATCH):
                    da = cp.dot(x[:, j:j+BATCH].T, e) / x_x[j:j+BATCH]
                    e -= cp.sum(da * x[:, j:j+BATCH], axis=1)
                    aa[j:j+BATCH] += da


def download(s):
    with s.stream:
        s.aa.get(out=s.host.outputs["a"])
