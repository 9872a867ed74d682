"""The CuPy notebook's random-feature network with NumPy: np.linalg.lstsq per neuron on its subset, H = np.tanh(x @ W.T), V by np.linalg.solve of the ridged normal equations, then the test predictions."""
import types

import numpy as np

DEVICE = "cpu"
MAX_SIZE = 2000000  # H is obs x 1000 float64, held once: 16 GB at 2e6
DEFAULT_SIZES = [10000, 100000, 1000000]


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.x = ctx.inputs["x"]              # obs x 10
    s.y = ctx.inputs["y"]
    s.xt = ctx.inputs["x_test"]
    s.subsets = ctx.inputs["subsets"]  # row i: neuron i's rows of x
    s.w_all = ctx.outputs["w"]         # neurons x 10
    s.V = ctx.outputs["v"]
    s.predt = ctx.outputs["predictions"]
    s.ridge = ctx.constants["ridge"]
    return s


def run(s):
    x, y, w_all = s.x, s.y, s.w_all
    neurons = w_all.shape[0]
    yy = np.arctanh(y)
    for i in range(neurons):
        ii = s.subsets[i]
        w_all[i] = np.linalg.lstsq(x[ii], yy[ii], rcond=None)[0]
    layer1 = np.dot(x, w_all.T)
    np.tanh(layer1, out=layer1)  # in place: one obs x neurons array, not two
    hth = layer1.T @ layer1      # NumPy's syrk
    hty = layer1.T @ y
    del layer1
    # The ridge of ann_common.hpp: H^T H alone is numerically singular.
    d = np.arange(neurons)
    hth[d, d] += s.ridge * np.trace(hth) / neurons
    s.V[:] = np.linalg.solve(hth, hty)
    layer1t = np.dot(s.xt, w_all.T)
    np.tanh(layer1t, out=layer1t)
    np.dot(layer1t, s.V, out=s.predt)
