"""C = A @ B with a Numba CUDA kernel as the Numba documentation writes it (a thread per entry)."""
import math
import types

from numba import cuda

DEVICE = "cuda"
MAX_SIZE = 16384
DEFAULT_SIZES = [64, 128, 256, 512, 1024, 2048, 4096]

THREADS = (16, 16)


@cuda.jit
def matmul(a, b, c):
    col, row = cuda.grid(2)  # x runs along a row of C, so reads of B are coalesced
    if row < c.shape[0] and col < c.shape[1]:
        tmp = 0.0
        for k in range(a.shape[1]):
            tmp += a[row, k] * b[k, col]
        c[row, col] = tmp


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.stream = cuda.external_stream(ctx.stream)  # the runner's stream: its events time us
    s.a = cuda.device_array_like(ctx.inputs["a"], stream=s.stream)
    s.b = cuda.device_array_like(ctx.inputs["b"], stream=s.stream)
    s.c = cuda.device_array_like(ctx.outputs["c"], stream=s.stream)
    n = ctx.size
    s.blocks = (math.ceil(n / THREADS[0]), math.ceil(n / THREADS[1]))
    return s


def upload(s):
    s.a.copy_to_device(s.host.inputs["a"], stream=s.stream)
    s.b.copy_to_device(s.host.inputs["b"], stream=s.stream)


def run(s):
    matmul[s.blocks, THREADS, s.stream](s.a, s.b, s.c)


def download(s):
    s.c.copy_to_host(s.host.outputs["c"], stream=s.stream)
