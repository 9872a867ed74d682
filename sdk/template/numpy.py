"""y = a*x over n float32 with NumPy: a whole plugin in one script, its data and its check included."""
import numpy as np

DEVICE = "cpu"
SIZE_MEANING = "n: y = a*x over n float32 elements"
PARAMS = "a=<number from -1000 to 1000> (the scale factor, default 2)"
PARAMETERS = "a: real -1000..1000 = 2"  # declared: a wrong --param a is refused before measuring
ITEM_NAME = "elements"          # what work()'s items count
MAX_SIZE = 1 << 28              # sizes: integers or integer expressions
DEFAULT_SIZES = [1 << 10, 1 << 16, 1 << 20, 1 << 24]


def scale(params):
    """--param a, as workload.hpp declares it for the C++ backends: -1000 to 1000, default 2."""
    text = params.get("a", "2")
    a = float(text)
    if not -1000.0 <= a <= 1000.0:  # NaN too
        raise ValueError("a='%s': expected a number from -1000 to 1000" % text)
    return np.float32(a)


def work(size, params):  # what one run() does: for throughput, and to catch impossible rates
    scale(params)
    return {"flops": size, "bytes": 8 * size, "items": size,
            "host_bytes": 24 * size,  # x, y and the check's float64 arrays
            "math": "fp32", "run_repeatable": True}


def setup(ctx):  # create(): untimed; the inputs from the run's seed, reproducible
    rng = np.random.default_rng(ctx.seed)
    x = rng.random(ctx.size, dtype=np.float32) * np.float32(2) - np.float32(1)  # [-1, 1)
    return {"a": scale(ctx.params), "x": x, "y": np.empty_like(x)}


def run(s):  # timed: computes the whole result again each time (run() is called many times)
    np.multiply(s["a"], s["x"], out=s["y"])


def verify(s):
    """Against float64 arithmetic, where a float32 product is exact: the only error is y's
    rounding to float32, at most 2^-24 of |a*x|; the tolerance is twice that."""
    reference = np.float64(s["a"]) * s["x"]
    magnitude = np.maximum(np.abs(reference), np.finfo(np.float32).tiny)
    error = float(np.max(np.abs(s["y"] - reference) / magnitude, initial=0.0))
    if np.isnan(error):
        error = float("inf")
    tolerance = float(np.finfo(np.float32).eps)
    return {"passed": error <= tolerance, "max_error": error, "tolerance": tolerance,
            "checked": int(s["y"].size), "detail": "error relative to |a*x| vs float64"}
