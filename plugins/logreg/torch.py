"""Softmax regression, full-batch gradient descent with PyTorch: X @ theta and X.T @ (P - Y) per step (cuBLAS) on the runner's stream."""
import types

import numpy as np
import torch

DEVICE = "cuda"
MAX_SIZE = 60000
DEFAULT_SIZES = [60, 600, 6000, 60000]


def setup(ctx):
    s = types.SimpleNamespace()
    s.device = torch.device("cuda", ctx.device)
    s.stream = torch.cuda.ExternalStream(ctx.stream, device=s.device)
    s.iterations = int(ctx.constants["iterations"])
    s.lr = np.float32(ctx.constants["lr"])
    s.host = {name: torch.from_numpy(array) for name, array in {**ctx.inputs, **ctx.outputs}.items()}
    with torch.cuda.stream(s.stream):
        s.x = torch.empty_like(s.host["x"], device=s.device)  # n x 785 float32, bias last
        s.labels = torch.empty_like(s.host["labels"], device=s.device)
        s.theta = torch.empty_like(s.host["theta"], device=s.device)  # 785 x 10
    return s


def upload(s):
    with torch.cuda.stream(s.stream):
        s.x.copy_(s.host["x"], non_blocking=True)
        s.labels.copy_(s.host["labels"], non_blocking=True)
        s.y = torch.nn.functional.one_hot(s.labels.long(), 10).float()  # n x 10


def run(s):
    with torch.cuda.stream(s.stream):
        x, theta = s.x, s.theta
        step = float(s.lr / np.float32(x.shape[0]))  # theta -= lr * G / n, lr / n in float32
        theta.zero_()
        for _ in range(s.iterations):
            z = x @ theta
            z -= z.amax(dim=1, keepdim=True)  # shifted by the row's max: exp never overflows
            p = torch.exp(z)
            p /= p.sum(dim=1, keepdim=True)
            theta -= step * (x.T @ (p - s.y))


def download(s):
    with torch.cuda.stream(s.stream):
        s.host["theta"].copy_(s.theta, non_blocking=True)
