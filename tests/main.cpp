#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

namespace {

// The Python plugins run in GPUBENCH_PYTHON, else python3 on PATH. Where that python3 cannot
// import NumPy and Numba (a pyenv shim, a bare venv) but Debian's can, the tests use Debian's,
// so that the numpy and numba backends are tested wherever install-deps.sh has run. Set for
// this process and every runner and worker it starts.
void choose_python() {
    if (const char *chosen = std::getenv("GPUBENCH_PYTHON"); chosen && *chosen) return;
    const std::string probe = " -c 'import numpy, numba' >/dev/null 2>&1";
    for (const char *candidate : {"python3", "/usr/bin/python3"})
        if (std::system((std::string(candidate) + probe).c_str()) == 0) {
            if (std::string(candidate) != "python3") setenv("GPUBENCH_PYTHON", candidate, 1);
            return;
        }
}

}  // namespace

int main(int argc, char *argv[]) {
    choose_python();
    return Catch::Session().run(argc, argv);
}
