"""Softmax regression, full-batch gradient descent with Numba on the CPU: @njit(parallel=True), the logits split over samples and the gradient over features by prange."""
import types

import numba
import numpy as np

DEVICE = "cpu"
MAX_SIZE = 60000
DEFAULT_SIZES = [60, 600, 6000]


# Loops over 1-D contiguous rows in functions of their own: that is what LLVM vectorizes
# (the same loops over 2-D indices inside train() stay scalar). fastmath lets it reorder
# the dot product's sum.
@numba.njit(fastmath=True)
def dot(a, b):
    total = np.float32(0)
    for k in range(a.shape[0]):
        total += a[k] * b[k]
    return total


@numba.njit
def axpy(alpha, x, y):  # y += alpha * x
    for k in range(x.shape[0]):
        y[k] += alpha * x[k]


# Explicit loops inside the prange bodies: Numba 0.56 computes array expressions there
# (z[:] = np.exp(z - z.max())) wrongly.
@numba.njit(parallel=True)
def train(x, labels, theta, iterations, lr):
    n, features = x.shape
    classes = theta.shape[1]
    theta_t = np.zeros((classes, features), dtype=np.float32)  # class-major: rows for dot()
    grad_t = np.empty_like(theta_t)
    residual = np.empty((n, classes), dtype=np.float32)  # softmax(z) - onehot(label)
    step = lr / np.float32(n)
    chunks = numba.get_num_threads()
    for _ in range(iterations):
        for i in numba.prange(n):
            z = residual[i]
            for c in range(classes):
                z[c] = dot(x[i], theta_t[c])
            top = z.max()  # softmax shifted by the max: exp never overflows
            total = np.float32(0)
            for c in range(classes):
                z[c] = np.exp(z[c] - top)
                total += z[c]
            for c in range(classes):
                z[c] /= total
            z[labels[i]] -= 1
        # G = X^T residual: each thread owns a slice of the features and walks the samples.
        for chunk in numba.prange(chunks):
            first = chunk * features // chunks
            last = (chunk + 1) * features // chunks
            for c in range(classes):
                for j in range(first, last):
                    grad_t[c, j] = 0
            for i in range(n):
                for c in range(classes):
                    axpy(residual[i, c], x[i, first:last], grad_t[c, first:last])
        theta_t -= step * grad_t
    theta[:] = theta_t.T


def setup(ctx):
    numba.set_num_threads(min(ctx.threads, numba.config.NUMBA_NUM_THREADS))
    s = types.SimpleNamespace(host=ctx)
    s.iterations = int(ctx.constants["iterations"])
    s.lr = np.float32(ctx.constants["lr"])
    return s


def run(s):  # the first call compiles: the results' first_run shows the JIT time
    train(s.host.inputs["x"], s.host.inputs["labels"], s.host.outputs["theta"], s.iterations, s.lr)
