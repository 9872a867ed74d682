"""Mandelbrot escape counts with a CuPy ElementwiseKernel over the pixels' c (broadcast row and column), on the runner's stream."""
import types

import cupy as cp
import numpy as np

DEVICE = "cuda"
MAX_SIZE = 16384
DEFAULT_SIZES = [256, 512, 1024, 2048, 4096]

# One thread per pixel: cr broadcasts along the columns, ci along the rows; T is float32 or
# float64 as dtype= says.
mandel = cp.ElementwiseKernel(
    "T cr, T ci, int32 max_iters",
    "uint16 image",
    """
    T zr = 0, zi = 0;
    int count = 0;
    for (; count < max_iters; ++count) {
        const T next_r = zr * zr - zi * zi + cr;
        zi = 2 * zr * zi + ci;
        zr = next_r;
        if (zr * zr + zi * zi >= 4) break;
    }
    image = count;
    """,
    "mandelbrot")


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.stream = cp.cuda.ExternalStream(ctx.stream)  # kept alive as long as the instance
    k = ctx.constants  # the frame every backend samples, rounded to dtype=
    real = np.float32 if k["float_bits"] == 32 else np.float64
    height, width = ctx.outputs["image"].shape
    s.iterations = np.int32(k["iterations"])
    with s.stream:  # c = (min_x + x * step_x) + i (min_y + y * step_y), as the C++ frame
        s.cr = real(k["min_x"]) + cp.arange(width, dtype=real) * real(k["step_x"])
        s.ci = real(k["min_y"]) + cp.arange(height, dtype=real)[:, None] * real(k["step_y"])
        s.image = cp.empty_like(ctx.outputs["image"])
    return s


def run(s):
    with s.stream:
        mandel(s.cr, s.ci, s.iterations, s.image)


def download(s):
    with s.stream:
        s.image.get(out=s.host.outputs["image"])
