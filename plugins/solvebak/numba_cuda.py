"""SolveBak least squares by coordinate descent with Numba CUDA kernels, written the seminar's way: per block of columns a dot-product kernel (atomics) and a residual-update kernel."""
import types

from numba import cuda

DEVICE = "cuda"
MAX_SIZE = 4000000
DEFAULT_SIZES = [1000, 10000, 100000, 1000000]

THREADS_PER_BLOCK = 256  # a power of two: the shared-memory tree below halves it
MAX_DOT_BLOCKS = 1024    # of rows per column; more rows are taken by a grid-stride loop


# xt is X transposed (vars x obs): row j is column X_j, so consecutive threads read
# consecutive rows of X.
@cuda.jit
def start(y, e, a):  # e = y - X a with a = 0
    i = cuda.grid(1)
    if i < e.shape[0]:
        e[i] = y[i]
    if i < a.shape[0]:
        a[i] = 0


@cuda.jit
def clear(dot):  # the dot products are accumulated by atomics: zero before each sweep
    j = cuda.grid(1)
    if j < dot.shape[0]:
        dot[j] = 0


# Grid (columns of the block, blocks of rows): x, not y, counts the columns, as a block may
# have more than CUDA's 65535 in y.
@cuda.jit
def compute_dot(xt, e, j0, dot):  # dot[j0 + b] = X_{j0+b} . e for b = blockIdx.x
    partial = cuda.shared.array(THREADS_PER_BLOCK, dtype=xt.dtype)
    j = j0 + cuda.blockIdx.x
    tid = cuda.threadIdx.x
    acc = xt.dtype.type(0)
    first, stride = cuda.blockIdx.y * THREADS_PER_BLOCK + tid, cuda.gridDim.y * THREADS_PER_BLOCK
    for i in range(first, e.shape[0], stride):
        acc += xt[j, i] * e[i]
    partial[tid] = acc
    cuda.syncthreads()
    half = THREADS_PER_BLOCK // 2
    while half > 0:  # the block's sum in shared memory, then one atomic per block
        if tid < half:
            partial[tid] += partial[tid + half]
        cuda.syncthreads()
        half //= 2
    if tid == 0:
        cuda.atomic.add(dot, j, partial[0])


@cuda.jit
def update(xt, e, dot, x_x, a, j0, nb):  # da = dot / |X_j|^2; e -= X_blk da; a_blk += da
    i = cuda.grid(1)
    if i < e.shape[0]:
        step = xt.dtype.type(0)
        for b in range(nb):
            step += dot[j0 + b] / x_x[j0 + b] * xt[j0 + b, i]
        e[i] -= step
    if i < nb:
        a[j0 + i] += dot[j0 + i] / x_x[j0 + i]


def blocks(count):
    return (count + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK


def setup(ctx):
    s = types.SimpleNamespace(host=ctx)
    s.stream = cuda.external_stream(ctx.stream)  # the runner's stream: its events time us
    xt = ctx.inputs["xt"]
    s.xt = cuda.device_array_like(xt, stream=s.stream)
    s.y = cuda.device_array_like(ctx.inputs["y"], stream=s.stream)
    s.x_x = cuda.device_array_like(ctx.inputs["x_x"], stream=s.stream)
    s.a = cuda.device_array_like(ctx.outputs["a"], stream=s.stream)
    s.e = cuda.device_array_like(ctx.inputs["y"], stream=s.stream)
    s.dot = cuda.device_array_like(ctx.outputs["a"], stream=s.stream)
    s.iters = int(ctx.constants["iterations"])
    s.batch = int(ctx.constants["batch"])
    s.vars, obs = xt.shape
    s.row_blocks = blocks(max(obs, s.vars))
    s.dot_blocks = min(blocks(obs), MAX_DOT_BLOCKS)
    return s


def upload(s):
    s.xt.copy_to_device(s.host.inputs["xt"], stream=s.stream)
    s.y.copy_to_device(s.host.inputs["y"], stream=s.stream)
    s.x_x.copy_to_device(s.host.inputs["x_x"], stream=s.stream)


def run(s):  # the first call compiles: the results' first_run shows the JIT time
    start[s.row_blocks, THREADS_PER_BLOCK, s.stream](s.y, s.e, s.a)
    for _ in range(s.iters):
        clear[blocks(s.vars), THREADS_PER_BLOCK, s.stream](s.dot)
        for j0 in range(0, s.vars, s.batch):
            nb = min(s.batch, s.vars - j0)
            compute_dot[(nb, s.dot_blocks), THREADS_PER_BLOCK, s.stream](s.xt, s.e, j0, s.dot)
            update[s.row_blocks, THREADS_PER_BLOCK, s.stream](s.xt, s.e, s.dot, s.x_x, s.a, j0, nb)


def download(s):
    s.a.copy_to_host(s.host.outputs["a"], stream=s.stream)
