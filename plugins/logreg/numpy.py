"""Softmax regression, full-batch gradient descent with NumPy: X @ theta and X.T @ (P - Y) per step (NumPy's BLAS)."""
import types

import numpy as np

DEVICE = "cpu"
MAX_SIZE = 60000
DEFAULT_SIZES = [60, 600, 6000]


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.x = ctx.inputs["x"]                                     # n x 785 float32, bias last
    s.y = np.eye(10, dtype=np.float32)[ctx.inputs["labels"]]  # one-hot, n x 10
    s.theta = ctx.outputs["theta"]                            # 785 x 10
    s.iterations = int(ctx.constants["iterations"])
    s.lr = np.float32(ctx.constants["lr"])
    return s


def run(s):
    x, theta = s.x, s.theta
    step = s.lr / np.float32(x.shape[0])  # theta -= lr * G / n, in float32 as the reference
    theta[...] = 0
    for _ in range(s.iterations):
        z = x @ theta
        z -= z.max(axis=1, keepdims=True)  # softmax shifted by the row's max: exp never overflows
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        theta -= step * (x.T @ (p - s.y))
