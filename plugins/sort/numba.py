"""n keys ascending with Numba on the CPU: np.sort of one chunk per thread (prange), then rounds of pairwise merges."""
import numba
import numpy as np

DEVICE = "cpu"
MAX_SIZE = 1_000_000_000
DEFAULT_SIZES = [1_000, 10_000, 100_000, 1_000_000]


@numba.njit
def merge(keys, values, out_keys, out_values, lo, mid, hi):
    """Merges the sorted runs [lo, mid) and [mid, hi) of keys into out_keys[lo:hi] (values
    ride along; values is None for keys alone, a branch Numba removes when compiling)."""
    i, j = lo, mid
    for k in range(lo, hi):
        if j == hi or (i < mid and keys[i] <= keys[j]):  # ties from the left: stable
            src = i
            i += 1
        else:
            src = j
            j += 1
        out_keys[k] = keys[src]
        if values is not None:
            out_values[k] = values[src]


@numba.njit(parallel=True)
def merge_sort(keys, values, scratch_keys, scratch_values, chunks):
    """Sorts keys (and values along) in place, chunk c being [c n / chunks, (c+1) n / chunks)."""
    n = keys.size
    for c in numba.prange(chunks):
        lo, hi = c * n // chunks, (c + 1) * n // chunks
        if values is None:
            keys[lo:hi].sort()
        else:
            order = np.argsort(keys[lo:hi])
            values[lo:hi] = values[lo:hi][order]
            keys[lo:hi] = keys[lo:hi][order]
    src_keys, src_values, dst_keys, dst_values = keys, values, scratch_keys, scratch_values
    width, rounds = 1, 0  # sorted runs of `width` chunks, merged two by two
    while width < chunks:
        for p in numba.prange((chunks + 2 * width - 1) // (2 * width)):
            first = 2 * p * width
            lo = first * n // chunks
            mid = min(first + width, chunks) * n // chunks
            hi = min(first + 2 * width, chunks) * n // chunks
            merge(src_keys, src_values, dst_keys, dst_values, lo, mid, hi)
        src_keys, dst_keys = dst_keys, src_keys
        src_values, dst_values = dst_values, src_values
        width *= 2
        rounds += 1
    if rounds % 2 == 1:  # the last round wrote the scratch arrays
        keys[:] = scratch_keys
        if values is not None:
            values[:] = scratch_values


def setup(ctx):
    numba.set_num_threads(min(ctx.threads, numba.config.NUMBA_NUM_THREADS))
    ctx.chunks = numba.get_num_threads()
    # The merge rounds' scratch, written once now so that no run() pays its page faults.
    ctx.scratch = {name: np.full_like(working, 0) for name, working in ctx.outputs.items()}
    return ctx


def reset(ctx):  # run() sorts the working arrays in place: restore them from the input
    for name, working in ctx.outputs.items():
        np.copyto(working, ctx.inputs[name])


def run(ctx):  # the first call compiles: the results' first_run shows the JIT time
    merge_sort(ctx.outputs["keys"], ctx.outputs.get("values"), ctx.scratch["keys"],
               ctx.scratch.get("values"), ctx.chunks)
