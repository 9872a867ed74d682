"""Softmax regression, full-batch gradient descent with CuPy: X @ theta and X.T @ (P - Y) per step (cuBLAS) on the runner's stream."""
import types

import cupy as cp
import numpy as np

DEVICE = "cuda"
MAX_SIZE = 60000
DEFAULT_SIZES = [60, 600, 6000, 60000]


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.stream = cp.cuda.ExternalStream(ctx.stream)  # kept alive as long as the instance
    s.iterations = int(ctx.constants["iterations"])
    s.lr = np.float32(ctx.constants["lr"])
    with s.stream:
        s.x = cp.empty_like(ctx.inputs["x"])  # n x 785 float32, bias last
        s.labels = cp.empty_like(ctx.inputs["labels"])
        s.theta = cp.empty_like(ctx.outputs["theta"])  # 785 x 10
    return s


def upload(s):
    with s.stream:
        s.x.set(s.host.inputs["x"])
        s.labels.set(s.host.inputs["labels"])
        s.y = cp.eye(10, dtype=cp.float32)[s.labels]  # one-hot, n x 10


def run(s):
    with s.stream:
        x, theta = s.x, s.theta
        step = s.lr / np.float32(x.shape[0])  # theta -= lr * G / n, in float32
        theta.fill(0)
        for _ in range(s.iterations):
            z = x @ theta
            z -= z.max(axis=1, keepdims=True)  # shifted by the row's max: exp never overflows
            p = cp.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            theta -= step * (x.T @ (p - s.y))


def download(s):
    with s.stream:
        s.theta.get(out=s.host.outputs["theta"])
