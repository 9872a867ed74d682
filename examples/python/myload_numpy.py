"""y = a*x + y over n float32 with NumPy: a whole plugin in one script, data and check included."""
import numpy as np

DEVICE = "cpu"
SIZE_MEANING = "n: elements of x and y, float32"
PARAMS = "a=<number> (the scale, default 2)"
PARAMETERS = "a: real -1000..1000 = 2"   # its keys, values and default: a wrong --param is refused
ITEM_NAME = "elements"          # what work()'s items count
HEADLINE = "gbytes_per_s"       # the throughput shown first: gflops, gbytes_per_s or items_per_s
MAX_SIZE = 1 << 30              # sizes: integers or integer expressions
DEFAULT_SIZES = [1000, 100_000, 10 * 1000 * 1000]


def work(size, params):  # what one run() does: for throughput, and to catch impossible rates
    return {"flops": 2 * size, "bytes": 12 * size, "items": size,
            "host_bytes": 16 * size,  # x, y0, y and the check's float64 copy: checked against free memory
            "math": "fp32", "run_repeatable": True}


def setup(ctx):
    rng = np.random.default_rng(ctx.seed)  # inputs from the run's seed: reproducible
    x = rng.random(ctx.size, dtype=np.float32)
    y0 = rng.random(ctx.size, dtype=np.float32)
    a = np.float32(ctx.params.get("a", "2"))
    return {"a": a, "x": x, "y0": y0, "y": np.empty_like(y0)}


def run(s):  # computes the whole result again each time (run() is called many times)
    np.multiply(s["a"], s["x"], out=s["y"])
    s["y"] += s["y0"]


def verify(s):  # against float64 arithmetic, with a tolerance of a few float32 roundings
    expected = s["a"].astype(np.float64) * s["x"] + s["y0"]
    error = float(np.max(np.abs(s["y"] - expected) / (np.abs(expected) + 1e-30), initial=0.0))
    return {"passed": error <= 4e-7, "max_error": error, "tolerance": 4e-7,
            "checked": int(s["y"].size), "detail": "relative error vs float64"}
