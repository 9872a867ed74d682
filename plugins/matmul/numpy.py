"""C = A @ B with NumPy (np.matmul into the result array; NumPy's BLAS on the CPU)."""
import numpy as np

DEVICE = "cpu"
MAX_SIZE = 8192
DEFAULT_SIZES = [64, 128, 256, 512, 1024]


def setup(ctx):
    return ctx


def run(ctx):
    np.matmul(ctx.inputs["a"], ctx.inputs["b"], out=ctx.outputs["c"])
