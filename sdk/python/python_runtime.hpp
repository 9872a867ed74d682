// The Python interpreter a Python plugin runs in: the one find-python.sh chooses at run time
// (GPUBENCH_PYTHON, else `python3` on PATH, else /usr/bin/python3: the first with the script's
// modules), never the Python the bridge was built against. Its libpython is
// loaded with dlopen and every C API function is looked up with dlsym, so nothing here needs
// Python's headers and one build serves 3.8 ... 3.13 alike: only functions of the stable ABI
// are used, and no struct of Python's is touched.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::python {

// What the interpreter says of itself (python3 -c ...), asked in a child process.
struct Interpreter {
    std::string executable;         // its sys.executable
    std::string version;            // "3.12.3"
    std::string library;            // the shared libpython to dlopen
    std::string home;               // sys.base_prefix:sys.base_exec_prefix (PYTHONHOME)
    std::vector<std::string> path;  // its sys.path: the venv's site-packages included
    std::string prefix;             // sys.prefix (the venv when there is one)
};

// Finds (find-python.sh) and asks the interpreter that has `modules` (top-level names). Throws
// gpubench::NotSupported with a one-line reason ("no Python with 'numpy', 'cupy':
// /usr/bin/python3 lacks 'cupy' (pip install cupy-cuda13x, or set GPUBENCH_PYTHON)", ...).
Interpreter find_interpreter(const std::vector<std::string> &modules);

// Opaque Python object (PyObject *).
struct Object;

// The C API functions the bridge uses, bound by dlsym. Names as in Python's C API.
struct Api {
    void (*Py_InitializeEx)(int);
    int (*Py_IsInitialized)();
    void *(*PyEval_SaveThread)();
    int (*PyGILState_Ensure)();
    void (*PyGILState_Release)(int);
    Object *(*PyImport_ImportModule)(const char *);
    Object *(*PyObject_GetAttrString)(Object *, const char *);
    Object *(*PyObject_CallObject)(Object *, Object *);
    Object *(*PyTuple_New)(intptr_t);
    int (*PyTuple_SetItem)(Object *, intptr_t, Object *);
    Object *(*PyTuple_GetItem)(Object *, intptr_t);
    intptr_t (*PyTuple_Size)(Object *);
    Object *(*PyLong_FromUnsignedLongLong)(unsigned long long);
    Object *(*PyLong_FromLongLong)(long long);
    long long (*PyLong_AsLongLong)(Object *);
    Object *(*PyFloat_FromDouble)(double);
    double (*PyFloat_AsDouble)(Object *);
    Object *(*PyUnicode_FromString)(const char *);
    Object *(*PyUnicode_AsUTF8String)(Object *);
    char *(*PyBytes_AsString)(Object *);
    Object *(*PyMemoryView_FromMemory)(char *, intptr_t, int);
    Object *(*PyObject_Str)(Object *);
    Object *(*PyErr_Occurred)();
    void (*PyErr_Fetch)(Object **, Object **, Object **);
    void (*Py_DecRef)(Object *);
    void (*Py_IncRef)(Object *);
};

// The process's one interpreter: started on first use (libpython dlopen'ed RTLD_GLOBAL, so
// extension modules resolve against it; Py_InitializeEx(0): the runner keeps its signals;
// sys.path set to the found interpreter's). It is never finalised: CUDA libraries' teardown
// at exit must not race Python's, and a worker process ends soon after its last plugin call.
// Throws NotSupported when it cannot start. `cpu_threads` caps the BLAS and Numba thread
// pools of the first start (environment variables the user set win).
const Api &start_interpreter(const Interpreter &interpreter, int cpu_threads);

// Holds the GIL for a scope; the interpreter runs with it released between plugin calls, so
// any runner thread may call in.
class Gil {
public:
    explicit Gil(const Api &api) : api_(api), state_(api.PyGILState_Ensure()) {}
    ~Gil() { api_.PyGILState_Release(state_); }
    Gil(const Gil &) = delete;
    Gil &operator=(const Gil &) = delete;

private:
    const Api &api_;
    int state_;
};

// An owned reference (Py_DecRef on destruction). Requires the GIL for its whole life.
class Ref {
public:
    Ref() = default;
    Ref(const Api *api, Object *object) : api_(api), object_(object) {}
    Ref(Ref &&other) noexcept : api_(other.api_), object_(other.release()) {}
    Ref &operator=(Ref &&other) noexcept {
        if (this != &other) {
            reset();
            api_ = other.api_;
            object_ = other.release();
        }
        return *this;
    }
    ~Ref() { reset(); }
    Object *get() const { return object_; }
    Object *release() {
        Object *o = object_;
        object_ = nullptr;
        return o;
    }
    void reset() {
        if (object_) api_->Py_DecRef(object_);
        object_ = nullptr;
    }
    explicit operator bool() const { return object_ != nullptr; }

private:
    const Api *api_ = nullptr;
    Object *object_ = nullptr;
};

// The pending Python error as one line ("ValueError: ..."), cleared; "" when none.
std::string take_error(const Api &api);

}  // namespace gpubench::python
