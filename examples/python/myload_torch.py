"""y = a*x + y over n float32 with PyTorch on the runner's stream: a whole plugin in one script."""
import numpy as np
import torch

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


def setup(ctx):
    device = torch.device("cuda", ctx.device)
    rng = np.random.default_rng(ctx.seed)
    s = {"stream": torch.cuda.ExternalStream(ctx.stream, device=device),  # the runner's stream
         "a": float(np.float32(ctx.params.get("a", "2")))}
    # Host tensors page-locked (pin_memory): copy_(..., non_blocking=True) is then asynchronous
    # on the stream, and the runner's events time the transfer itself.
    s["x_host"] = torch.from_numpy(rng.random(ctx.size, dtype=np.float32)).pin_memory()
    s["y0_host"] = torch.from_numpy(rng.random(ctx.size, dtype=np.float32)).pin_memory()
    s["y_host"] = torch.empty(ctx.size, dtype=torch.float32).pin_memory()
    with torch.cuda.stream(s["stream"]):
        for name in ("x", "y0", "y"):
            s[name] = torch.empty(ctx.size, dtype=torch.float32, device=device)
    return s


def upload(s):
    with torch.cuda.stream(s["stream"]):
        s["x"].copy_(s["x_host"], non_blocking=True)
        s["y0"].copy_(s["y0_host"], non_blocking=True)


def run(s):
    with torch.cuda.stream(s["stream"]):
        torch.add(s["y0"], s["x"], alpha=s["a"], out=s["y"])


def download(s):
    with torch.cuda.stream(s["stream"]):
        s["y_host"].copy_(s["y"], non_blocking=True)


def verify(s):  # after the runner waited for its stream: y_host holds the result
    x, y0, y = (s[name].numpy() for name in ("x_host", "y0_host", "y_host"))
    expected = np.float64(s["a"]) * x + y0
    error = float(np.max(np.abs(y - expected) / (np.abs(expected) + 1e-30), initial=0.0))
    return {"passed": error <= 4e-7, "max_error": error, "tolerance": 4e-7,
            "checked": int(y.size), "detail": "relative error vs float64"}
