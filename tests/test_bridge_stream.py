"""ctx.stream in every form the docs give, without a GPU: the bridge's ctx (bridge_helper.setup)
against stand-ins for CuPy 14, CuPy 12/13, PyTorch and Numba-CUDA that check their argument as
those libraries do (CuPy 14's Stream.from_external calls obj.__cuda_stream__() and refuses an
object without it; the others take an int). The forms on the real libraries and the runner's
stream are tested on a GPU by test_python_bridge.cpp ("every documented form of ctx.stream").

    python3 tests/test_bridge_stream.py SOURCE_DIR
"""
import contextlib
import ctypes
import importlib.util
import os
import sys
import types
import unittest
import warnings

SOURCE_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
HANDLE = 0x7F3A5C001230  # a cudaStream_t as the runner passes it


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SOURCE_DIR, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bridge = load("sdk/python/bridge_helper.py", "gpubench_bridge_helper")


def bridge_ctx():
    """The ctx a script's setup(ctx) receives, through the bridge's own setup()."""
    script = types.SimpleNamespace(setup=lambda ctx: ctx)
    # No arrays here, so the bridge's NumPy is only imported: a stand-in serves without it.
    no_numpy = importlib.util.find_spec("numpy") is None
    with stand_ins(**({"numpy": types.ModuleType("numpy")} if no_numpy else {})):
        return bridge.setup(script, 1000, 7, 2, 0, HANDLE, "a=1", [], [("factor", 2.0)])


class Stream:
    """What the stand-ins return: the handle they were given, as CUDA would use it."""

    def __init__(self, ptr):
        self.ptr = int(ptr)

    def __enter__(self):
        return self

    def __exit__(self, *error):
        return False


def require_int(ptr, what):
    if not isinstance(ptr, int):  # Cython's intptr_t, torch's int64, numba's isinstance check
        raise TypeError("%s takes an int, not %s" % (what, type(ptr).__name__))
    return Stream(ptr)


def cupy(version):
    """CuPy 14 (Stream.from_external through the stream protocol; ExternalStream deprecated)
    or CuPy 12/13 (ExternalStream of an int only)."""
    cp = types.ModuleType("cupy")
    cp.__version__ = version
    cp.cuda = types.SimpleNamespace(Stream=type("Stream", (), {}))

    def external_stream(ptr, device_id=-1):
        if version.startswith("14"):
            warnings.warn("ExternalStream is deprecated. Use Stream.from_external()", DeprecationWarning)
        return require_int(ptr, "ExternalStream")
    cp.cuda.ExternalStream = external_stream
    if version.startswith("14"):
        def from_external(obj):
            try:
                result = obj.__cuda_stream__()
            except AttributeError:
                raise TypeError("Object of type %s does not implement the CUDA stream protocol"
                                % type(obj).__name__)
            if not (isinstance(result, tuple) and len(result) == 2 and
                    all(isinstance(x, int) for x in result) and result[0] == 0):
                raise TypeError("__cuda_stream__() must return (0, stream_ptr), got %r" % (result,))
            return Stream(result[1])
        cp.cuda.Stream.from_external = staticmethod(from_external)
    return cp


def torch():
    t = types.ModuleType("torch")
    t.device = lambda kind, index: (kind, index)
    t.cuda = types.SimpleNamespace(
        ExternalStream=lambda stream_ptr, device=None: require_int(stream_ptr, "ExternalStream"),
        stream=lambda s: s)
    return t


def numba():
    n = types.ModuleType("numba")
    n.cuda = types.SimpleNamespace(external_stream=lambda ptr: require_int(ptr, "external_stream"))
    return n


@contextlib.contextmanager
def stand_ins(**modules):
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


class StreamIsAnInt(unittest.TestCase):
    def test_it_is_the_handle_as_an_int(self):
        ctx = bridge_ctx()
        self.assertIsInstance(ctx.stream, int)
        self.assertEqual(ctx.stream, HANDLE)
        self.assertIs(type(int(ctx.stream)), int)
        self.assertEqual(int(ctx.stream), HANDLE)
        self.assertEqual(hash(ctx.stream), hash(HANDLE))
        self.assertEqual({HANDLE: "x"}[ctx.stream], "x")
        self.assertEqual(str(ctx.stream), str(HANDLE))
        self.assertEqual("%d %x %s" % (ctx.stream, ctx.stream, ctx.stream), "%d %x %s" % (HANDLE, HANDLE, HANDLE))
        self.assertEqual(f"{ctx.stream} {ctx.stream:#x}", f"{HANDLE} {HANDLE:#x}")
        self.assertEqual(ctypes.c_void_p(ctx.stream).value, HANDLE)
        self.assertEqual(ctx.stream + 0, HANDLE)

    def test_it_speaks_the_cuda_stream_protocol(self):
        ctx = bridge_ctx()
        self.assertEqual(ctx.stream.__cuda_stream__(), (0, HANDLE))
        self.assertIs(type(ctx.stream.__cuda_stream__()[1]), int)
        self.assertIs(ctx.cuda_stream, ctx.stream)  # the older name, the same object

    def test_the_rest_of_ctx_is_unchanged(self):
        ctx = bridge_ctx()
        self.assertEqual((ctx.size, ctx.seed, ctx.threads, ctx.device), (1000, 7, 2, 0))
        self.assertEqual(ctx.params, {"a": "1"})
        self.assertEqual(ctx.constants, {"factor": 2.0})


class EveryDocumentedFormTakesIt(unittest.TestCase):
    def test_cupy_14_from_external_and_its_deprecated_external_stream(self):
        ctx = bridge_ctx()
        with stand_ins(cupy=cupy("14.0.0")):
            import cupy as cp
            self.assertEqual(cp.cuda.Stream.from_external(ctx.stream).ptr, HANDLE)
            self.assertEqual(cp.cuda.Stream.from_external(ctx.cuda_stream).ptr, HANDLE)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                self.assertEqual(cp.cuda.ExternalStream(ctx.stream).ptr, HANDLE)

    def test_cupy_12_and_13_external_stream(self):
        ctx = bridge_ctx()
        for version in ("12.3.0", "13.6.0"):
            with stand_ins(cupy=cupy(version)):
                import cupy as cp
                self.assertFalse(hasattr(cp.cuda.Stream, "from_external"))
                self.assertEqual(cp.cuda.ExternalStream(ctx.stream).ptr, HANDLE)
                self.assertEqual(cp.cuda.ExternalStream(ctx.cuda_stream).ptr, HANDLE)

    def test_torch_and_numba(self):
        ctx = bridge_ctx()
        with stand_ins(torch=torch(), numba=numba()):
            import torch as t
            from numba import cuda
            device = t.device("cuda", ctx.device)
            self.assertEqual(t.cuda.stream(t.cuda.ExternalStream(ctx.stream, device=device)).ptr, HANDLE)
            self.assertEqual(cuda.external_stream(ctx.stream).ptr, HANDLE)

    def test_the_cupy_example_picks_its_form_by_version(self):
        ctx = bridge_ctx()
        for version in ("12.3.0", "13.6.0", "14.0.0"):
            with stand_ins(cupy=cupy(version), cupyx=types.ModuleType("cupyx"),
                           numpy=sys.modules.get("numpy") or types.ModuleType("numpy")):
                example = load("examples/python/myload_cupy.py", "myload_cupy_" + version[:2])
                self.assertEqual(example.runner_stream(ctx).ptr, HANDLE, version)


class TheStandInsRefuseWhatTheLibrariesRefuse(unittest.TestCase):
    """The other direction: what the old ctx passed, and the stand-ins' checks themselves."""

    def test_cupy_14_refuses_a_plain_int(self):  # ctx.stream before it spoke the protocol
        with stand_ins(cupy=cupy("14.0.0")):
            import cupy as cp
            with self.assertRaisesRegex(TypeError, "does not implement the CUDA stream protocol"):
                cp.cuda.Stream.from_external(HANDLE)

    def test_the_int_forms_refuse_an_object_that_is_not_an_int(self):
        protocol_only = types.SimpleNamespace(__cuda_stream__=lambda: (0, HANDLE))
        with stand_ins(cupy=cupy("12.3.0"), torch=torch(), numba=numba()):
            import cupy as cp
            import torch as t
            from numba import cuda
            for form in (cp.cuda.ExternalStream, t.cuda.ExternalStream, cuda.external_stream):
                with self.assertRaises(TypeError):
                    form(protocol_only)

    def test_a_wrong_protocol_answer_is_refused(self):
        class Version1(int):
            def __cuda_stream__(self):
                return (1, int(self))
        with stand_ins(cupy=cupy("14.0.0")):
            import cupy as cp
            with self.assertRaises(TypeError):
                cp.cuda.Stream.from_external(Version1(HANDLE))


if __name__ == "__main__":
    unittest.main(verbosity=2)
