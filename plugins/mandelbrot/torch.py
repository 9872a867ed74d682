"""Mandelbrot escape counts with PyTorch tensor operations, one iteration at a time over the whole image (pixels that escaped are masked), on the runner's stream."""
import types

import torch

DEVICE = "cuda"
MAX_SIZE = 16384
DEFAULT_SIZES = [256, 512, 1024, 2048, 4096]


def setup(ctx):
    s = types.SimpleNamespace()
    s.device = torch.device("cuda", ctx.device)
    s.stream = torch.cuda.ExternalStream(ctx.stream, device=s.device)
    k = ctx.constants  # the frame every backend samples, rounded to dtype=
    real = torch.float32 if k["float_bits"] == 32 else torch.float64
    height, width = ctx.outputs["image"].shape
    s.iterations = int(k["iterations"])
    s.host_image = torch.from_numpy(ctx.outputs["image"].view("int16"))  # uint16 bits
    with torch.cuda.stream(s.stream):  # c = (min_x + x * step_x) + i (min_y + y * step_y)
        step_x, step_y = (torch.tensor(k[name], dtype=real, device=s.device) for name in ("step_x", "step_y"))
        s.cr = torch.tensor(k["min_x"], dtype=real, device=s.device) + \
            torch.arange(width, dtype=real, device=s.device) * step_x
        s.ci = torch.tensor(k["min_y"], dtype=real, device=s.device) + \
            torch.arange(height, dtype=real, device=s.device)[:, None] * step_y
        s.cr, s.ci = torch.broadcast_tensors(s.cr, s.ci)
        s.zr, s.zi = torch.empty_like(s.cr), torch.empty_like(s.cr)
        s.count = torch.empty((height, width), dtype=torch.int32, device=s.device)
        s.image = torch.empty((height, width), dtype=torch.int16, device=s.device)
    return s


def run(s):
    # The C++ loop: z = z^2 + c, then count the step unless |z|^2 >= 4; a pixel that escaped
    # keeps its z and count (torch.where), so each pixel sees exactly the loop's arithmetic.
    with torch.cuda.stream(s.stream):
        zr, zi, count = s.zr, s.zi, s.count
        zr.zero_()
        zi.zero_()
        count.zero_()
        running = torch.ones_like(count, dtype=torch.bool)
        for _ in range(s.iterations):
            next_r = zr * zr - zi * zi + s.cr
            next_i = 2 * zr * zi + s.ci
            zr = torch.where(running, next_r, zr)
            zi = torch.where(running, next_i, zi)
            running &= zr * zr + zi * zi < 4
            count += running
        s.image.copy_(count)


def download(s):
    with torch.cuda.stream(s.stream):
        s.host_image.copy_(s.image, non_blocking=True)
