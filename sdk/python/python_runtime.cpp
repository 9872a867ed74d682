#include "python_runtime.hpp"

#include <gpubench/child_process.hpp>
#include <gpubench/plugin.hpp>

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

// find-python.sh, embedded by gpubenchPython.cmake: the one rule for which interpreter runs.
extern const unsigned char gpubench_find_python_source[];

namespace gpubench::python {
namespace {

// Asked of the interpreter in a child process: who it is, where its shared libpython is and
// its sys.path. (Which modules it has is the finder's question, asked before.) Not the "" that
// `-c` puts first: the embedded interpreter would import from the runner's working folder, where
// a plugin's own numpy.py (say) would stand in for NumPy.
constexpr const char *query_source = R"PY(
import os, sys, sysconfig
v = sysconfig.get_config_var
library = ""
for folder in (v("LIBDIR"), os.path.join(sys.base_prefix, "lib"), v("LIBPL")):
    for name in (v("INSTSONAME"), v("LDLIBRARY")):
        if folder and name and ".so" in name and os.path.isfile(os.path.join(folder, name)):
            library = library or os.path.join(folder, name)
answer = [("executable", sys.executable), ("version", sys.version.split()[0]),
          ("minor", str(sys.version_info[1] if sys.version_info[0] == 3 else 0)),
          ("library", library), ("home", sys.base_prefix + ":" + sys.base_exec_prefix),
          ("prefix", sys.prefix)]
answer += [("path", p) for p in (sys.path[1:] if sys.path[:1] == [""] else sys.path)]
print("gpubench-python-query")
for key, value in answer:
    print(key + "=" + value.replace("\n", " "))
)PY";

constexpr double query_timeout_s = 60;

struct Output {
    int exit_status = -1;  // -1: killed by a signal or the time-out
    std::string text;      // stdout and stderr together
};

// Runs argv (argv[0] looked up on PATH) and returns what it printed. Throws NotSupported
// when it cannot be started.
Output run_captured(const std::vector<std::string> &argv, const std::string &what) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw NotSupported("cannot ask " + what + ": no pipe");
    // In the caller's process group: whoever kills the caller's group (the runner, a worker's
    // time-out) kills it too.
    ChildProcess child;
    const int spawned = child.start({argv, {{fds[1], STDOUT_FILENO}, {fds[1], STDERR_FILENO}}, {},
                                     /*own_group=*/false, /*search_path=*/true});
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        throw NotSupported(what + ": cannot run it (" + std::strerror(spawned) + ")");
    }
    Output out;
    const auto began = std::chrono::steady_clock::now();
    char buffer[8192];
    for (;;) {
        pollfd p{fds[0], POLLIN, 0};
        poll(&p, 1, 200);
        const ssize_t got = read(fds[0], buffer, sizeof buffer);
        if (got > 0 && out.text.size() < (1u << 20)) out.text.append(buffer, size_t(got));
        if (got == 0) break;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() >
            query_timeout_s) {
            child.kill();
            break;
        }
    }
    close(fds[0]);
    const int status = child.wait();
    if (WIFEXITED(status)) out.exit_status = WEXITSTATUS(status);
    return out;
}

std::string last_line(const std::string &text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
    const size_t start = t.rfind('\n');
    return start == std::string::npos ? t : t.substr(start + 1);
}

template <class F>
void bind(void *library, F &function, const char *name) {
    function = reinterpret_cast<F>(dlsym(library, name));
    if (!function) throw NotSupported(std::string("libpython lacks ") + name);
}

// Sets an environment variable for the interpreter's start unless the user set it.
void default_env(const char *name, int value) {
    if (value > 0) setenv(name, std::to_string(value).c_str(), 0);
}

// The C API functions the bridge calls, from the loaded libpython.
Api bind_api(void *library) {
    Api bound{};
    bind(library, bound.Py_InitializeEx, "Py_InitializeEx");
    bind(library, bound.Py_IsInitialized, "Py_IsInitialized");
    bind(library, bound.PyEval_SaveThread, "PyEval_SaveThread");
    bind(library, bound.PyGILState_Ensure, "PyGILState_Ensure");
    bind(library, bound.PyGILState_Release, "PyGILState_Release");
    bind(library, bound.PyImport_ImportModule, "PyImport_ImportModule");
    bind(library, bound.PyObject_GetAttrString, "PyObject_GetAttrString");
    bind(library, bound.PyObject_CallObject, "PyObject_CallObject");
    bind(library, bound.PyTuple_New, "PyTuple_New");
    bind(library, bound.PyTuple_SetItem, "PyTuple_SetItem");
    bind(library, bound.PyTuple_GetItem, "PyTuple_GetItem");
    bind(library, bound.PyTuple_Size, "PyTuple_Size");
    bind(library, bound.PyLong_FromUnsignedLongLong, "PyLong_FromUnsignedLongLong");
    bind(library, bound.PyLong_FromLongLong, "PyLong_FromLongLong");
    bind(library, bound.PyLong_AsLongLong, "PyLong_AsLongLong");
    bind(library, bound.PyFloat_FromDouble, "PyFloat_FromDouble");
    bind(library, bound.PyFloat_AsDouble, "PyFloat_AsDouble");
    bind(library, bound.PyUnicode_FromString, "PyUnicode_FromString");
    bind(library, bound.PyUnicode_AsUTF8String, "PyUnicode_AsUTF8String");
    bind(library, bound.PyBytes_AsString, "PyBytes_AsString");
    bind(library, bound.PyMemoryView_FromMemory, "PyMemoryView_FromMemory");
    bind(library, bound.PyObject_Str, "PyObject_Str");
    bind(library, bound.PyErr_Occurred, "PyErr_Occurred");
    bind(library, bound.PyErr_Fetch, "PyErr_Fetch");
    bind(library, bound.Py_DecRef, "Py_DecRef");
    bind(library, bound.Py_IncRef, "Py_IncRef");
    return bound;
}

// Starts the interpreter of `bound`, with the thread defaults of a worker of `cpu_threads`.
void initialize(const Api &bound, const Interpreter &interpreter, int cpu_threads) {
    // The interpreter's standard library is found from PYTHONHOME, as the interpreter
    // itself found it; restored afterwards so that child processes see the user's.
    const char *old_home = std::getenv("PYTHONHOME");
    const std::string saved_home = old_home ? old_home : "";
    setenv("PYTHONHOME", interpreter.home.c_str(), 1);
    for (const char *name : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                             "NUMBA_NUM_THREADS"})
        default_env(name, cpu_threads);
    bound.Py_InitializeEx(0);  // 0: no Python signal handlers in the runner's process
    if (old_home) setenv("PYTHONHOME", saved_home.c_str(), 1);
    else unsetenv("PYTHONHOME");
    if (!bound.Py_IsInitialized())
        throw NotSupported("Py_InitializeEx failed for " + interpreter.library);
    bound.PyEval_SaveThread();  // released: every call takes it with Gil
}

// The interpreter find-python.sh chooses for `modules` (GPUBENCH_PYTHON, else python3 on PATH,
// else /usr/bin/python3: the first that has them all); its one-line reason where none does.
std::string chosen_interpreter(const std::vector<std::string> &modules) {
    std::vector<std::string> argv = {"/bin/sh", "-c",
                                     reinterpret_cast<const char *>(gpubench_find_python_source),
                                     "find-python.sh"};
    argv.insert(argv.end(), modules.begin(), modules.end());
    const Output out = run_captured(argv, "/bin/sh");
    const std::string line = last_line(out.text);
    if (out.exit_status != 0 || line.empty())
        throw NotSupported(line.empty() ? "find-python.sh failed" : line.substr(0, 300));
    return line;
}

}  // namespace

Interpreter find_interpreter(const std::vector<std::string> &modules) {
    const std::string program = chosen_interpreter(modules);
    const Output out = run_captured({program, "-c", query_source}, program);
    const size_t begin = out.text.find("gpubench-python-query\n");
    if (out.exit_status != 0 || begin == std::string::npos)
        throw NotSupported(program + " did not answer the bridge's query: " +
                           last_line(out.text).substr(0, 200));
    Interpreter found;
    int minor = 0;
    size_t at = begin + std::strlen("gpubench-python-query\n");
    while (at < out.text.size()) {
        size_t end = out.text.find('\n', at);
        if (end == std::string::npos) end = out.text.size();
        const std::string line = out.text.substr(at, end - at);
        at = end + 1;
        const size_t eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
        if (key == "executable") found.executable = value;
        else if (key == "version") found.version = value;
        else if (key == "minor") minor = std::atoi(value.c_str());
        else if (key == "library") found.library = value;
        else if (key == "home") found.home = value;
        else if (key == "prefix") found.prefix = value;
        else if (key == "path") found.path.push_back(value);
    }
    const std::string who = "python " + found.version + " (" + found.executable + ")";
    if (minor < 8) throw NotSupported(who + " is older than 3.8");
    if (found.library.empty())
        throw NotSupported(who + " has no shared libpython (built without --enable-shared), "
                                 "so it cannot be embedded");
    return found;
}

const Api &start_interpreter(const Interpreter &interpreter, int cpu_threads) {
    static std::mutex mutex;
    static Api api{};
    static std::string started_library;
    std::lock_guard<std::mutex> lock(mutex);
    if (!started_library.empty()) {
        if (started_library != interpreter.library)
            throw NotSupported("this process already runs " + started_library + ", not " +
                               interpreter.library);
        return api;
    }
    // Kept for the life of the process: Python is never unloaded.
    void *library = dlopen(interpreter.library.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!library)
        throw NotSupported("cannot load " + interpreter.library + ": " + dlerror());
    const Api bound = bind_api(library);
    if (!bound.Py_IsInitialized()) initialize(bound, interpreter, cpu_threads);
    api = bound;
    started_library = interpreter.library;
    return api;
}

std::string take_error(const Api &api) {
    if (!api.PyErr_Occurred()) return "";
    Object *type = nullptr, *value = nullptr, *traceback = nullptr;
    api.PyErr_Fetch(&type, &value, &traceback);
    std::string text = "Python error";
    if (Object *shown = value ? value : type) {
        Ref str(&api, api.PyObject_Str(shown));
        Ref utf8(&api, str ? api.PyUnicode_AsUTF8String(str.get()) : nullptr);
        if (utf8) text = api.PyBytes_AsString(utf8.get());
    }
    for (Object *o : {type, value, traceback})
        if (o) api.Py_DecRef(o);
    if (api.PyErr_Occurred()) {  // str() itself failed
        api.PyErr_Fetch(&type, &value, &traceback);
        for (Object *o : {type, value, traceback})
            if (o) api.Py_DecRef(o);
    }
    return text;
}

}  // namespace gpubench::python
