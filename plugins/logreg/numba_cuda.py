"""Softmax regression, full-batch gradient descent with Numba CUDA kernels as the seminar writes them (compute_h, compute_gradient with atomics, update_theta)."""
import math
import types

import numpy as np
from numba import cuda, float32

DEVICE = "cuda"
MAX_SIZE = 60000
DEFAULT_SIZES = [60, 600, 6000, 60000]

THREADS_PER_BLOCK = 256


# The seminar's kernels with its one-vs-rest sigmoid replaced by gpubench's softmax: h is
# softmax(X theta) by rows, the gradient X^T (h - y) and the step theta -= lr G / m.
@cuda.jit
def compute_h(X, theta, h):
    idx = cuda.grid(1)
    if idx < X.shape[0]:
        top = float32(-math.inf)
        for c in range(theta.shape[1]):
            z = float32(0.0)
            for j in range(X.shape[1]):
                z += X[idx, j] * theta[j, c]
            h[idx, c] = z
            top = max(top, z)
        total = float32(0.0)
        for c in range(theta.shape[1]):  # shifted by the row's max: exp never overflows
            h[idx, c] = math.exp(h[idx, c] - top)
            total += h[idx, c]
        for c in range(theta.shape[1]):
            h[idx, c] /= total


@cuda.jit
def compute_gradient(X, y, h, gradient):
    idx = cuda.grid(1)
    if idx < X.shape[0]:
        for c in range(y.shape[1]):
            for j in range(X.shape[1]):
                cuda.atomic.add(gradient, (j, c), (h[idx, c] - y[idx, c]) * X[idx, j])


# Also clears the gradient it has applied, for the next step's atomics: the seminar's
# `gradient[:] = 0.0` is a host-side assignment that copies the 0 from the host every step.
@cuda.jit
def update_theta(theta, gradient, learning_rate, m):
    idx = cuda.grid(1)
    if idx < theta.shape[0]:
        for c in range(theta.shape[1]):
            theta[idx, c] -= learning_rate * gradient[idx, c] / m
            gradient[idx, c] = 0.0


@cuda.jit
def clear(theta, gradient):  # theta = 0 and gradient = 0: the start of every training
    idx = cuda.grid(1)
    if idx < theta.shape[0]:
        for c in range(theta.shape[1]):
            theta[idx, c] = 0.0
            gradient[idx, c] = 0.0


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.stream = cuda.external_stream(ctx.stream)  # the runner's stream: its events time us
    x = ctx.inputs["x"]
    m, n = x.shape
    s.y_host = np.eye(10, dtype=np.float32)[ctx.inputs["labels"]]  # one-hot, as the seminar's
    s.X = cuda.device_array_like(x, stream=s.stream)
    s.y = cuda.device_array_like(s.y_host, stream=s.stream)
    s.theta = cuda.device_array((n, 10), dtype=np.float32, stream=s.stream)
    s.h = cuda.device_array((m, 10), dtype=np.float32, stream=s.stream)
    s.gradient = cuda.device_array((n, 10), dtype=np.float32, stream=s.stream)
    s.learning_rate = np.float32(ctx.constants["lr"])
    s.m = np.float32(m)
    s.iterations = int(ctx.constants["iterations"])
    s.sample_blocks = (m + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    s.feature_blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    return s


def upload(s):
    s.X.copy_to_device(s.host.inputs["x"], stream=s.stream)
    s.y.copy_to_device(s.y_host, stream=s.stream)


def run(s):  # the first call compiles: the results' first_run shows the JIT time
    clear[s.feature_blocks, THREADS_PER_BLOCK, s.stream](s.theta, s.gradient)
    for _ in range(s.iterations):
        compute_h[s.sample_blocks, THREADS_PER_BLOCK, s.stream](s.X, s.theta, s.h)
        compute_gradient[s.sample_blocks, THREADS_PER_BLOCK, s.stream](s.X, s.y, s.h, s.gradient)
        update_theta[s.feature_blocks, THREADS_PER_BLOCK, s.stream](
            s.theta, s.gradient, s.learning_rate, s.m)


def download(s):
    s.theta.copy_to_host(s.host.outputs["theta"], stream=s.stream)
