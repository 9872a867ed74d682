"""n keys ascending with NumPy: ndarray.sort() in place (keys=pairs: np.argsort, then keys and values gathered)."""
import numpy as np

DEVICE = "cpu"
MAX_SIZE = 100_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000]


def setup(ctx):
    return ctx


def reset(ctx):  # run() sorts the working arrays in place: restore them from the input
    for name, working in ctx.outputs.items():
        np.copyto(working, ctx.inputs[name])


def run(ctx):
    keys = ctx.outputs["keys"]
    if "values" in ctx.outputs:  # keys=pairs: each value moves with its key
        order = np.argsort(keys)
        values = ctx.outputs["values"]
        keys[:] = keys[order]
        values[:] = values[order]
    else:
        keys.sort()
