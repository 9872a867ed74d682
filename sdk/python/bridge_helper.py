"""The Python half of gpubench's Python bridge (embedded in every Python plugin).

The C++ half calls these functions through `guarded`, which turns whatever the backend script
raises into (status, one-line message) for the plugin ABI, so no Python exception ever reaches
the runner.
"""
import gc
import sys
import traceback
import types
import warnings

# gpubench_status values (plugin.h)
OK, ERROR, OUT_OF_MEMORY, NOT_SUPPORTED, INVALID_ARGUMENT, DEVICE_ERROR = 0, 1, 2, 3, 4, 5

DEVICE_ERRORS = ("CUDARuntimeError", "CUDADriverError", "CudaAPIError", "CudaSupportError",
                 "CudaDriverError")


def configure(executable, prefix, *path):
    """Makes the embedded interpreter look like the one found on PATH (its venv included)."""
    sys.executable = executable
    sys.prefix = sys.exec_prefix = prefix
    sys.path[:] = list(path)
    sys.argv = [executable]
    # Numba warns of small grids on every launch at small sizes: noise in the runner's table.
    warnings.filterwarnings("ignore", message="Grid size .* will likely result in GPU under-utilization")


def _compatible_numpy():
    """numba-cuda 0.x (at least with numba 0.68) still names np.row_stack, which NumPy 2.5
    removed: its first kernel compile fails with AttributeError. np.vstack is what it was."""
    numpy = sys.modules.get("numpy")
    if numpy is not None and not hasattr(numpy, "row_stack"):
        numpy.row_stack = numpy.vstack


def _status_of(error):
    marked = getattr(error, "gpubench_status", None)
    if marked is not None:
        return marked
    names = [cls.__name__ for cls in type(error).__mro__]
    if isinstance(error, MemoryError) or any("OutOfMemory" in n for n in names):
        return OUT_OF_MEMORY
    if isinstance(error, NotImplementedError):
        return NOT_SUPPORTED
    if any(n in DEVICE_ERRORS for n in names):
        return DEVICE_ERROR
    return ERROR


def _where(error, script):
    if isinstance(error, SyntaxError) and error.filename:
        return " (%s:%s)" % (error.filename, error.lineno)
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if f.filename == script] or frames
    return " (%s:%d)" % (own[-1].filename, own[-1].lineno) if own else ""


def _script_call(function, *args):
    """The script's work() or setup(): a ValueError raised there refuses a parameter value, so it
    is INVALID_ARGUMENT (a ValueError in run(), or in the bridge's own checks, stays an error)."""
    try:
        return function(*args)
    except ValueError as error:
        error.gpubench_status = INVALID_ARGUMENT
        raise


def guarded(script, function, *args):
    """(status, message, value): the call's value, or why it failed in one line."""
    try:
        return (OK, "", function(*args))
    except BaseException as error:  # KeyboardInterrupt and SystemExit must not escape either
        shown = error.msg if isinstance(error, SyntaxError) else error
        text = " ".join(("%s: %s" % (type(error).__name__, shown)).split())
        return (_status_of(error), text[:400] + _where(error, script), None)


class _Siblings:
    """Imports the modules embedded beside the script (helpers.py) by their own names, ahead of
    anything installed: in a worker that loads one plugin, its own files are what it means."""

    def __init__(self, sources):
        self.sources = sources  # name -> (file, source)

    def find_spec(self, name, path=None, target=None):
        import importlib.util

        if name not in self.sources:
            return None
        return importlib.util.spec_from_loader(name, self, origin=self.sources[name][0])

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module):
        filename, source = self.sources[module.__name__]
        module.__file__ = filename
        exec(compile(source, filename, "exec"), module.__dict__)


def add_siblings(*triples):
    """(name, file, source) for each module embedded beside the script."""
    sources = {triples[i]: (triples[i + 1], triples[i + 2]) for i in range(0, len(triples), 3)}
    sys.meta_path.insert(0, _Siblings(sources))


def load(source, filename, module_name):
    """The backend script as a module of its own name (not e.g. `numpy`, its file's name)."""
    module = types.ModuleType(module_name)
    module.__file__ = filename
    sys.modules[module_name] = module  # Numba's caching and pickling look modules up here
    exec(compile(source, filename, "exec"), module.__dict__)
    _compatible_numpy()
    for required in ("setup", "run"):
        if not callable(getattr(module, required, None)):
            raise TypeError("%s defines no %s(ctx)" % (filename, required))
    return module


def _params(text):
    params = {}
    for item in text.split(","):
        if item:
            key, _, value = item.partition("=")
            params[key] = value
    return params


class CudaStream(int):
    """The runner's cudaStream_t, in every form a library takes: an int equal to the handle
    (CuPy 12/13's ExternalStream, torch.cuda.ExternalStream, numba.cuda.external_stream,
    ctypes) that also speaks the CUDA stream protocol, __cuda_stream__() -> (0, handle) (CuPy
    14's cp.cuda.Stream.from_external, cuda.core). So ctx.stream works in the form written for
    any of them, and ctx.cuda_stream is the same object. It prints as the number (no __repr__ of
    its own: str() and f-strings of an int subclass use it)."""

    __slots__ = ()

    def __cuda_stream__(self):
        return (0, int(self))  # a plain int: a protocol consumer may check its type


def setup(module, size, seed, threads, device, stream, params, arrays, constants):
    """Calls the script's setup(ctx) with the C++ half's host arrays as NumPy arrays."""
    import numpy as np

    runner_stream = CudaStream(stream)
    ctx = types.SimpleNamespace(size=size, seed=seed, threads=threads, device=device,
                                stream=runner_stream, cuda_stream=runner_stream,
                                params=_params(params), inputs={}, outputs={},
                                constants=dict(constants))
    for name, dtype, shape, memory, is_output in arrays:
        array = np.frombuffer(memory, dtype=dtype).reshape(shape)
        (ctx.outputs if is_output else ctx.inputs)[name] = array
    return _script_call(module.setup, ctx)


# work()'s keys, as gpubench_work's fields (gpubench/work.h), the names of its math, and its flags
# with their GPUBENCH_WORK_* bits.
WORK_NUMBERS = ("flops", "bytes", "items", "host_bytes", "device_bytes")
WORK_MATH = {"fp32": 0, "fp64": 1, "tf32": 2, "fp16": 3, "bf16": 3, "fp8": 4, "int8": 5}
WORK_FLAGS = {"run_repeatable": 1, "run_no_device_work": 2}


def work(module, size, params):
    """A script without a C++ half: its work(size, params) dict as (flops, bytes, items,
    host_bytes, device_bytes, math, flags, launches). A key gpubench does not know is an error,
    not dropped: a misspelt one would otherwise leave its figure at 0."""
    declared = getattr(module, "work", None)
    w = _script_call(declared, size, _params(params)) if declared else {}
    unknown = sorted(set(w) - set(WORK_NUMBERS) - {"math", "launches"} - set(WORK_FLAGS))
    if unknown:
        raise KeyError("work() returned %s; it takes %s, launches, math, %s" %
                       (", ".join(map(repr, unknown)), ", ".join(WORK_NUMBERS), " and ".join(WORK_FLAGS)))
    math = str(w.get("math", "fp32")).lower()
    if math not in WORK_MATH:
        raise ValueError("work()'s math %r is none of %s" % (math, ", ".join(WORK_MATH)))
    return tuple(float(w.get(key, 0)) for key in WORK_NUMBERS) + (
        WORK_MATH[math], sum(bit for key, bit in WORK_FLAGS.items() if w.get(key, False)),
        float(w.get("launches", 0)))


def verify(module, state):
    """A script without a C++ half checks its own result: verify(state) returns a dict."""
    r = module.verify(state)
    return (int(bool(r["passed"])), float(r.get("max_error", 0)), float(r.get("tolerance", 0)),
            int(r.get("checked", 0)), str(r.get("detail", "")))


METRIC_KEYS = ("name", "value", "unit", "better", "text")
BETTER = {None: 0, "higher": 1, "lower": 2}


def metrics(module, state):
    """The script's optional metrics(state): a list of dicts, each with a name and a value, and
    where it has them a unit, the way it improves ("higher" or "lower" is better) and a remark
    (text); as tuples (name, value, unit, better, text). A key or direction gpubench does not
    know is an error, not dropped."""
    declared = getattr(module, "metrics", None)
    out = []
    for m in (declared(state) if declared else None) or ():
        unknown = sorted(set(m) - set(METRIC_KEYS))
        if unknown:
            raise KeyError("metrics() returned %s; a metric takes %s" %
                           (", ".join(map(repr, unknown)), ", ".join(METRIC_KEYS)))
        better = m.get("better")
        if better not in BETTER:
            raise ValueError("metric %r: better is %r, not \"higher\" or \"lower\"" % (m.get("name"), better))
        out.append((str(m["name"]), float(m["value"]), str(m.get("unit", "")), BETTER[better],
                    str(m.get("text", ""))))
    return tuple(out)


def release(views):
    """Ends the memoryviews over the C++ arrays. Returns how many are still in use (a script
    that kept an array beyond destroy): the C++ half then keeps their memory alive."""
    gc.collect()
    busy = 0
    for view in views:
        try:
            view.release()
        except BufferError:
            busy += 1
    return busy
