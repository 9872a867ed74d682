"""n keys ascending with Numba CUDA kernels: a bottom-up merge sort, one thread per key placing it by binary search."""
import math
import types

from numba import cuda

DEVICE = "cuda"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]

THREADS = 256


@cuda.jit(device=True)
def merged_index(keys, i, width):
    """Where keys[i] goes when its sorted run of `width` keys merges with the run beside it:
    its rank in its own run plus the number of keys of the other run that go before it
    (those smaller, and for the right run also those equal: the sort is stable)."""
    n = keys.size
    start = i - i % (2 * width)
    mid = min(start + width, n)
    end = min(start + 2 * width, n)
    key = keys[i]
    if i < mid:  # left run: count the right run's keys < key
        lo, hi = mid, end
        while lo < hi:
            m = (lo + hi) // 2
            if keys[m] < key:
                lo = m + 1
            else:
                hi = m
        return i + (lo - mid)
    lo, hi = start, mid  # right run: count the left run's keys <= key
    while lo < hi:
        m = (lo + hi) // 2
        if keys[m] <= key:
            lo = m + 1
        else:
            hi = m
    return i - mid + lo


@cuda.jit
def merge_keys(keys, out_keys, width):
    i = cuda.grid(1)
    if i < keys.size:
        out_keys[merged_index(keys, i, width)] = keys[i]


@cuda.jit
def merge_pairs(keys, values, out_keys, out_values, width):
    i = cuda.grid(1)
    if i < keys.size:
        j = merged_index(keys, i, width)
        out_keys[j] = keys[i]
        out_values[j] = values[i]


def setup(ctx):
    s = types.SimpleNamespace(host=ctx, n=ctx.size, names=list(ctx.outputs))  # keys[, values]
    s.stream = cuda.external_stream(ctx.stream)  # the runner's stream: its events time us
    s.pristine = [cuda.device_array_like(ctx.inputs[k], stream=s.stream) for k in s.names]
    s.working = [cuda.device_array_like(ctx.outputs[k], stream=s.stream) for k in s.names]
    s.scratch = [cuda.device_array_like(ctx.outputs[k], stream=s.stream) for k in s.names]
    s.blocks = math.ceil(s.n / THREADS)
    # Sorted runs of 1, 2, 4... keys merged two by two, one pass each, ping-ponging between
    # the working and the scratch arrays: the result ends in one of them.
    s.widths = [1 << p for p in range((s.n - 1).bit_length())]
    s.result = s.scratch if len(s.widths) % 2 else s.working
    return s


def upload(s):
    for device, name in zip(s.pristine, s.names):
        device.copy_to_device(s.host.inputs[name], stream=s.stream)


def reset(s):  # run() starts from the working arrays: restore them from the input
    for working, pristine in zip(s.working, s.pristine):
        working.copy_to_device(pristine, stream=s.stream)


def run(s):
    src, dst = s.working, s.scratch
    for width in s.widths:
        if len(src) == 1:
            merge_keys[s.blocks, THREADS, s.stream](src[0], dst[0], width)
        else:
            merge_pairs[s.blocks, THREADS, s.stream](src[0], src[1], dst[0], dst[1], width)
        src, dst = dst, src


def download(s):
    for device, name in zip(s.result, s.names):
        device.copy_to_host(s.host.outputs[name], stream=s.stream)
