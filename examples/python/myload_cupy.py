"""y = a*x + y over n float32 with CuPy on the runner's stream: a whole plugin in one script."""
import cupy as cp
import cupyx
import numpy as np

DEVICE = "cuda"
SIZE_MEANING = "n: elements of x and y, float32"
PARAMS = "a=<number> (the scale, default 2)"
PARAMETERS = "a: real -1000..1000 = 2"   # its keys, values and default: a wrong --param is refused
ITEM_NAME = "elements"
MAX_SIZE = 1 << 30
DEFAULT_SIZES = [1000, 100_000, 10_000_000, 100_000_000]


def work(size, params):
    return {"flops": 2 * size, "bytes": 12 * size, "items": size,
            "host_bytes": 12 * size, "device_bytes": 12 * size, "run_repeatable": True}


def runner_stream(ctx):
    """The runner's stream, whose events time us: CuPy 14 takes it through the CUDA stream
    protocol and deprecates ExternalStream; CuPy 12 and 13 take its address. ctx.stream is both."""
    if hasattr(cp.cuda.Stream, "from_external"):
        return cp.cuda.Stream.from_external(ctx.stream)
    return cp.cuda.ExternalStream(ctx.stream)


def setup(ctx):
    rng = np.random.default_rng(ctx.seed)
    s = {"stream": runner_stream(ctx), "a": np.float32(ctx.params.get("a", "2"))}
    # The script's own host arrays, page-locked (as the bridge pins a C++ half's): transfers
    # from them run at the speed the C++ plugins' do.
    for name in ("x_host", "y0_host", "y_host"):
        s[name] = cupyx.empty_pinned(ctx.size, dtype=np.float32)
    s["x_host"][...] = rng.random(ctx.size, dtype=np.float32)
    s["y0_host"][...] = rng.random(ctx.size, dtype=np.float32)
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
