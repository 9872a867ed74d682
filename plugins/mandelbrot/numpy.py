"""Mandelbrot escape counts with NumPy: z = z*z + c over the whole image at once, each step only on the pixels not yet escaped."""
import numpy as np

DEVICE = "cpu"
MAX_SIZE = 8192
DEFAULT_SIZES = [256, 512, 1024]


def setup(ctx):
    k = ctx.constants  # the frame every backend samples, rounded to dtype=
    real = np.float32 if k["float_bits"] == 32 else np.float64
    width, height = int(k["width"]), int(k["height"])
    ctx.iterations = int(k["iterations"])
    # c of every pixel, flat in image order: (min_x + x * step_x) + i (min_y + y * step_y)
    x = real(k["min_x"]) + np.arange(width, dtype=real) * real(k["step_x"])
    y = real(k["min_y"]) + np.arange(height, dtype=real) * real(k["step_y"])
    ctx.cr = np.tile(x, height)
    ctx.ci = np.repeat(y, width)
    return ctx


def run(ctx):
    image = ctx.outputs["image"].reshape(-1)  # a view: the pixels in image order
    image[:] = ctx.iterations  # the value of the pixels that never escape
    pixel = np.arange(image.size)  # the pixels still iterating, and their c and z
    cr, ci = ctx.cr, ctx.ci
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    for i in range(ctx.iterations):
        # z*z + c written out as complex arithmetic does it (2*zr*zi == zr*zi + zi*zr)
        zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        escaped = zr * zr + zi * zi >= 4
        image[pixel[escaped]] = i
        going = ~escaped
        pixel, cr, ci, zr, zi = pixel[going], cr[going], ci[going], zr[going], zi[going]
