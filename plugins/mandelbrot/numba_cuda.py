"""Mandelbrot escape counts with the survival toolkit article's Numba CUDA kernel (grid-stride 2-D loops, 16x16 blocks)."""
import functools
import math
import types

import numba
from numba import cuda

DEVICE = "cuda"
MAX_SIZE = 16384
DEFAULT_SIZES = [256, 512, 1024, 2048, 4096]

THREADS = (16, 16)


@functools.lru_cache(maxsize=None)
def compile_kernel(real, cplx):
    """The article's mandel_gpu and mandel_kernel in one precision: real and cplx are
    Numba's types for dtype= (float64 and complex128, or float32 and complex64)."""

    @cuda.jit(device=True)
    def mandel_gpu(x, y, max_iters):
        c = cplx(complex(x, y))
        z = cplx(0)
        for i in range(max_iters):
            z = z * z + c
            if (z.real * z.real + z.imag * z.imag) >= 4:
                return i
        return max_iters

    @cuda.jit
    def mandel_kernel(min_x, min_y, pixel_size_x, pixel_size_y, image, iters):
        height = image.shape[0]
        width = image.shape[1]
        startX, startY = cuda.grid(2)
        gridX = cuda.gridDim.x * cuda.blockDim.x
        gridY = cuda.gridDim.y * cuda.blockDim.y
        for x in range(startX, width, gridX):
            real_x = min_x + real(x) * pixel_size_x
            for y in range(startY, height, gridY):
                imag = min_y + real(y) * pixel_size_y
                image[y, x] = mandel_gpu(real_x, imag, iters)

    return mandel_kernel


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.stream = cuda.external_stream(ctx.stream)  # the runner's stream: its events time us
    k = ctx.constants  # the frame every backend samples, rounded to dtype=
    if k["float_bits"] == 32:
        real, s.kernel = numba.float32, compile_kernel(numba.float32, numba.complex64)
    else:
        real, s.kernel = numba.float64, compile_kernel(numba.float64, numba.complex128)
    s.frame = [real(k[name]) for name in ("min_x", "min_y", "step_x", "step_y")]
    s.iterations = int(k["iterations"])
    s.image = cuda.device_array_like(ctx.outputs["image"], stream=s.stream)
    height, width = ctx.outputs["image"].shape
    s.blocks = (math.ceil(width / THREADS[0]), math.ceil(height / THREADS[1]))
    return s


def run(s):
    s.kernel[s.blocks, THREADS, s.stream](*s.frame, s.image, s.iterations)


def download(s):
    s.image.copy_to_host(s.host.outputs["image"], stream=s.stream)
