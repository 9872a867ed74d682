"""c = a + b with a Numba CUDA kernel, one thread per element (increment: a[i] += 1, as in the Numba examples)."""
import math
import types

from numba import cuda

DEVICE = "cuda"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]

THREADS = 256


@cuda.jit
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def increment(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def setup(ctx):
    s = types.SimpleNamespace(host=ctx, add="b" in ctx.inputs)  # increment: no b
    s.stream = cuda.external_stream(ctx.stream)  # the runner's stream: its events time us
    s.a = cuda.device_array_like(ctx.inputs["a"], stream=s.stream)
    s.b = cuda.device_array_like(ctx.inputs["b"], stream=s.stream) if s.add else None
    s.c = cuda.device_array_like(ctx.outputs["c"], stream=s.stream)
    s.blocks = math.ceil(ctx.size / THREADS)
    return s


def upload(s):
    s.a.copy_to_device(s.host.inputs["a"], stream=s.stream)
    if s.add:
        s.b.copy_to_device(s.host.inputs["b"], stream=s.stream)


def reset(s):  # increment works in place on c: restore it from the pristine a
    if not s.add:
        s.c.copy_to_device(s.a, stream=s.stream)


def run(s):
    if s.add:
        add[s.blocks, THREADS, s.stream](s.a, s.b, s.c)
    else:
        increment[s.blocks, THREADS, s.stream](s.c)


def download(s):
    s.c.copy_to_host(s.host.outputs["c"], stream=s.stream)
