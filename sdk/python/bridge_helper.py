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


def guarded(script, function, *args):
    """(status, message, value): the call's value, or why it failed in one line."""
    try:
        return (OK, "", function(*args))
    except BaseException as error:  # KeyboardInterrupt and SystemExit must not escape either
        shown = error.msg if isinstance(error, SyntaxError) else error
        text = " ".join(("%s: %s" % (type(error).__name__, shown)).split())
        return (_status_of(error), text[:400] + _where(error, script), None)


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


def setup(module, size, seed, threads, device, stream, params, arrays, constants):
    """Calls the script's setup(ctx) with the C++ half's host arrays as NumPy arrays."""
    import numpy as np

    ctx = types.SimpleNamespace(size=size, seed=seed, threads=threads, device=device,
                                stream=stream, params=_params(params), inputs={}, outputs={},
                                constants=dict(constants))
    for name, dtype, shape, memory, is_output in arrays:
        array = np.frombuffer(memory, dtype=dtype).reshape(shape)
        (ctx.outputs if is_output else ctx.inputs)[name] = array
    return module.setup(ctx)


def work(module, size, params):
    """A script without a C++ half: its work(size, params) dict as (flops, bytes, items)."""
    declared = getattr(module, "work", None)
    w = declared(size, _params(params)) if declared else {}
    return (float(w.get("flops", 0)), float(w.get("bytes", 0)), float(w.get("items", 0)))


def verify(module, state):
    """A script without a C++ half checks its own result: verify(state) returns a dict."""
    r = module.verify(state)
    return (int(bool(r["passed"])), float(r.get("max_error", 0)), float(r.get("tolerance", 0)),
            int(r.get("checked", 0)), str(r.get("detail", ""))[:255])


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
