#include "entry_cost.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace gpubench {

namespace {

// About an H100's rates, and a fraction of them for a CPU: a rough proxy, the same everywhere.
constexpr double nominal_flops_per_s = 1e13, nominal_bytes_per_s = 1e12, nominal_items_per_s = 1e10;
constexpr double nominal_cpu_slowdown = 100;
constexpr double nominal_entry_overhead_s = 0.05;
// Making the inputs and checking the result on the host, per byte an instance holds there
// (an H100 host's set-up of matmul at 8192 and sort at 1e8 took 0.6-1.2 s for 0.4-0.5 GB).
constexpr double nominal_host_bytes_per_s = 0.5e9;

// Starting a worker, as measured on an H100 host: a process with its plugin loaded; a CUDA
// context (0.5 s); an interpreter with its imports (0.4-1.9 s); what a library the script
// imports adds at its first use: a JIT compiler's first compilation (Numba 1-10 s, CuPy's
// kernels 0.05-1.8 s), PyTorch's import and CUDA set-up (4.2-4.6 s beyond the interpreter).
constexpr double worker_start_s = 0.05, cuda_context_s = 0.5, python_start_s = 1.0;
constexpr std::pair<const char *, double> jit_first_compile_s[] = {
    {"numba", 2.0}, {"cupy", 0.5}, {"torch", 4.5}};

std::string seconds_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", seconds);
    return text;
}

}  // namespace

double nominal_entry_s(const Work &work, gpubench_device_kind device, const MeasureOptions &options) {
    double run_s = work.flops / nominal_flops_per_s + work.bytes / nominal_bytes_per_s;
    if (run_s == 0) run_s = work.items / nominal_items_per_s;
    if (device != GPUBENCH_DEVICE_CUDA) run_s *= nominal_cpu_slowdown;
    const double sampling_s = std::min({std::max(run_s * double(options.min_samples), options.min_time_s),
                                        run_s * double(options.max_samples), options.max_time_s});
    return nominal_entry_overhead_s + work.host_bytes / nominal_host_bytes_per_s + run_s * options.warmup_runs +
           sampling_s;
}

double nominal_unknown_entry_s(const MeasureOptions &options) {
    return nominal_entry_overhead_s + options.max_time_s;
}

StartCost nominal_start_cost(const PluginInfo &plugin) {
    StartCost cost{worker_start_s, "worker " + seconds_text(worker_start_s), plugin.is_cuda() ? "CUDA" : "CPU"};
    const auto add = [&](const std::string &what, double seconds) {
        cost.seconds += seconds;
        cost.parts += " + " + what + " " + seconds_text(seconds);
        cost.kind += " " + what;
    };
    if (plugin.is_cuda()) add("CUDA context", cuda_context_s);
    const BuildRecord *record = plugin.build_record ? &*plugin.build_record : nullptr;
    if (record && record->language == "Python") {
        add("Python", python_start_s);
        for (const auto &[module, seconds] : jit_first_compile_s)
            if (std::find(record->imports.begin(), record->imports.end(), module) != record->imports.end())
                add(module, seconds);
    }
    return cost;
}

}  // namespace gpubench
