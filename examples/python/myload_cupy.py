"""y = a*x + y over n float32 with CuPy on the runner's stream: a whole plugin in one script."""
import cupy as cp
import numpy as np

DEVICE = "cuda"
SIZE_MEANING = "n: elements of x and y, float32"
PARAMS = "a=<number> (the scale, default 2)"
PARAM_NAMES = "a"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1000, 100000, 10000000, 100000000]


def work(size, params):
    return {"flops": 2 * size, "bytes": 12 * size, "items": size}


def setup(ctx):
    rng = np.random.default_rng(ctx.seed)
    s = {"stream": cp.cuda.ExternalStream(ctx.stream),  # the runner's: its events time us
         "a": np.float32(ctx.params.get("a", "2")),
         "x_host": rng.random(ctx.size, dtype=np.float32),
         "y0_host": rng.random(ctx.size, dtype=np.float32)}
    s["y_host"] = np.empty_like(s["y0_host"])
    with s["stream"]:
        s["x"] = cp.empty_like(s["x_host"])
        s["y0"] = cp.empty_like(s["y0_host"])
        s["y"] = cp.empty_like(s["y0_host"])
    return s


def upload(s):
    with s["stream"]:
        s["x"].set(s["x_host"])
        s["y0"].set(s["y0_host"])


def run(s):
    with s["stream"]:
        cp.multiply(s["a"], s["x"], out=s["y"])
        s["y"] += s["y0"]


def download(s):
    with s["stream"]:
        s["y"].get(out=s["y_host"])


def verify(s):
    expected = s["a"].astype(np.float64) * s["x_host"] + s["y0_host"]
    error = float(np.max(np.abs(s["y_host"] - expected) / (np.abs(expected) + 1e-30), initial=0.0))
    return {"passed": error <= 4e-7, "max_error": error, "tolerance": 4e-7,
            "checked": int(s["y_host"].size), "detail": "relative error vs float64"}
