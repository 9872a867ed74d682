"""C = A @ B with Numba on the CPU: an @njit(parallel=True) loop, rows split by prange."""
import numba
import numpy as np

DEVICE = "cpu"
MAX_SIZE = 4096
DEFAULT_SIZES = [64, 128, 256, 512, 1024]


@numba.njit(parallel=True)
def multiply(a, b, c):
    n = a.shape[0]
    for i in numba.prange(n):
        for j in range(n):
            c[i, j] = 0
        for k in range(n):  # i-k-j order: the inner loop walks rows of B and C
            aik = a[i, k]
            for j in range(n):
                c[i, j] += aik * b[k, j]


def setup(ctx):
    numba.set_num_threads(min(ctx.threads, numba.config.NUMBA_NUM_THREADS))
    return ctx


def run(ctx):  # the first call compiles: the results' first_run shows the JIT time
    multiply(ctx.inputs["a"], ctx.inputs["b"], ctx.outputs["c"])
