"""Mandelbrot escape counts with Numba on the CPU: the article's mandel() on complex z, @njit(parallel=True) over rows."""
import functools

import numba

DEVICE = "cpu"
MAX_SIZE = 8192
DEFAULT_SIZES = [256, 512, 1024, 2048]


@functools.lru_cache(maxsize=None)
def compile_fractal(real, cplx):
    """The article's mandel() and create_fractal() in one precision: real and cplx are
    Numba's types for dtype= (float64 and complex128, or float32 and complex64)."""

    @numba.njit
    def mandel(x, y, max_iters):
        c = cplx(complex(x, y))
        z = cplx(0)
        for i in range(max_iters):
            z = z * z + c
            if (z.real * z.real + z.imag * z.imag) >= 4:
                return i
        return max_iters

    @numba.njit(parallel=True)
    def create_fractal(min_x, min_y, pixel_size_x, pixel_size_y, image, iters):
        height, width = image.shape
        for y in numba.prange(height):
            imag = min_y + real(y) * pixel_size_y
            for x in range(width):
                image[y, x] = mandel(min_x + real(x) * pixel_size_x, imag, iters)

    return create_fractal


def setup(ctx):
    numba.set_num_threads(min(ctx.threads, numba.config.NUMBA_NUM_THREADS))
    k = ctx.constants  # the frame every backend samples, rounded to dtype=
    if k["float_bits"] == 32:
        real, ctx.create_fractal = numba.float32, compile_fractal(numba.float32, numba.complex64)
    else:
        real, ctx.create_fractal = numba.float64, compile_fractal(numba.float64, numba.complex128)
    ctx.frame = [real(k[name]) for name in ("min_x", "min_y", "step_x", "step_y")]
    ctx.iterations = int(k["iterations"])
    return ctx


def run(ctx):  # the first call compiles: the results' first_run shows the JIT time
    ctx.create_fractal(*ctx.frame, ctx.outputs["image"], ctx.iterations)
