"""n keys ascending with CuPy: ndarray.sort() in place (keys=pairs: cp.argsort, then keys and values gathered)."""
import types

import cupy as cp

DEVICE = "cuda"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]


def setup(ctx):
    s = types.SimpleNamespace(host=ctx, pairs="values" in ctx.outputs)
    s.stream = cp.cuda.ExternalStream(ctx.stream)  # kept alive as long as the instance
    with s.stream:
        s.pristine = {name: cp.empty_like(array) for name, array in ctx.inputs.items()}
        s.working = {name: cp.empty_like(array) for name, array in ctx.outputs.items()}
    return s


def upload(s):
    with s.stream:
        for name, device in s.pristine.items():
            device.set(s.host.inputs[name])


def reset(s):  # run() sorts the working arrays in place: restore them from the input
    with s.stream:
        for name, working in s.working.items():
            cp.copyto(working, s.pristine[name])


def run(s):
    keys = s.working["keys"]
    with s.stream:
        if s.pairs:  # each value moves with its key
            order = cp.argsort(keys)
            values = s.working["values"]
            keys[...] = keys[order]
            values[...] = values[order]
        else:
            keys.sort()


def download(s):
    with s.stream:
        for name, working in s.working.items():
            working.get(out=s.host.outputs[name])
