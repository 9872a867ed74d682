// Runs a Python program in the interpreter the Python bridge embeds: the shared libpython of
// the interpreter find-python.sh chooses for MODULES, with its home and sys.path, started as
// the python3 command starts. Debian and Ubuntu build that library apart from their python3
// executable, whose interpreter is linked in, and Python code runs about 1.3x slower in it:
// a library timed both ways shows the interpreter's build, and what gpubench's figure
// exceeds the embedded one by is the bridge's own.
//
//     embedded_python cupy,numpy bench/cupyx_benchmark.py --results r.json vecadd_cupy:1000
#include "python_runtime.hpp"

#include <gpubench/errors.hpp>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: embedded_python MODULE[,MODULE...] [python arguments...]\n");
        return 2;
    }
    try {
        std::vector<std::string> modules;
        std::stringstream list(argv[1]);
        for (std::string module; std::getline(list, module, ',');)
            if (!module.empty()) modules.push_back(module);
        const gpubench::python::Interpreter interpreter = gpubench::python::find_interpreter(modules);
        std::string path;
        for (const std::string &folder : interpreter.path)
            if (!folder.empty()) path += (path.empty() ? "" : ":") + folder;
        setenv("PYTHONHOME", interpreter.home.c_str(), 1);
        setenv("PYTHONPATH", path.c_str(), 1);  // the venv's site-packages, as the bridge sets them
        void *library = dlopen(interpreter.library.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (!library) throw gpubench::NotSupported(std::string("cannot load ") + dlerror());
        using Main = int (*)(int, char **);
        const auto py_main = reinterpret_cast<Main>(dlsym(library, "Py_BytesMain"));
        if (!py_main) throw gpubench::NotSupported(interpreter.library + " has no Py_BytesMain (Python 3.8+)");
        argv[1] = argv[0];  // the program's name, then the python3 command's arguments
        return py_main(argc - 1, argv + 1);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "embedded_python: error: %s\n", e.what());
        return 2;
    }
}
