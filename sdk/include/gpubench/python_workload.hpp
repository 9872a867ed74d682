// The C++ half of a workload's Python backends (optional): inputs made, and results checked,
// by the same C++ code as the workload's C++ backends, so that a Python backend gets
// bit-identical inputs and meets the same tolerances.
//
// A workload defines one object with this exact name in a library linked into its Python
// plugins (gpubench_add_python_plugin(... ADAPTER <library>)):
//
//   extern const gpubench::python::Workload gpubench_python_workload;
//
// The backend script then receives ctx.inputs and ctx.outputs (NumPy arrays over the host
// memory of arrays()) and ctx.constants, and must leave the result in ctx.outputs by the end
// of download() (or of run() where the script has no download()).
#pragma once

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::python {

// A host array the script sees as a NumPy array: `dtype` is NumPy's name ("float32").
struct Array {
    std::string name;
    std::string dtype;
    std::vector<size_t> shape;
    void *data = nullptr;
    size_t bytes = 0;
    bool output = false;  // in ctx.outputs (written by the script), else in ctx.inputs
};

// One instance's host memory, made in create() from (size, seed, params) and kept by the
// bridge until destroy(): the script's arrays point into it.
class Data {
public:
    virtual ~Data() = default;
    virtual std::vector<Array> arrays() = 0;
    // Scalars the script needs to compute the same thing (geometry, step counts...).
    virtual std::vector<std::pair<std::string, double>> constants() { return {}; }
    // Checks ctx.outputs as they are after download() (the stream has been synchronised).
    virtual Verification verify() = 0;
    virtual std::vector<Metric> metrics() { return {}; }
};

struct Workload {
    // The descriptor: the workload's shared text around the backend's own row.
    Info (*info)(const BackendSpec &backend);
    Work (*work)(const BackendSpec &backend, uint64_t size, const Params &params);
    // Throws gpubench::Error (NotSupported for sizes outside the backend's range...).
    std::unique_ptr<Data> (*create)(const BackendSpec &backend, const Setup &setup);
};

}  // namespace gpubench::python
