#include "entry_cost.hpp"

#include "sampling.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace gpubench {

namespace {

// The rates and what they cost: docs/scale-out.md ("Costs") says which studies each comes from.
// About an H100's rates, and a fraction of them for a CPU: a rough proxy, the same everywhere.
constexpr double nominal_flops_per_s = 1e13, nominal_bytes_per_s = 1e12, nominal_items_per_s = 1e10;
constexpr double nominal_cpu_slowdown = 100;
constexpr double nominal_entry_overhead_s = 0.05;
// Making the inputs and checking the result, per host byte; each sample's upload and download.
constexpr double nominal_host_bytes_per_s = 1e9, nominal_transfer_bytes_per_s = 50e9;
// A sample's cycle beyond its run: the harness's, and a Python backend's calls through its interpreter.
constexpr double compiled_cycle_overhead_s = 40e-6, python_cycle_overhead_s = 200e-6;
// Each device operation a run() declares (gpubench_work.launches), from compiled code; through
// Python, its library's (import_costs).
constexpr double compiled_launch_s = 2e-6;
// --counters on a GPU: 6 passes of the cycle, each with the profiler's own (docs/profiling.md).
constexpr double counting_passes = 6, counting_pass_s = 0.035;
// Starting a worker: a process with its plugin loaded, a CUDA context, an interpreter with its imports.
constexpr double worker_start_s = 0.05, cuda_context_s = 0.5, python_start_s = 1.0;

// What a library the script imports adds: at its first use (a JIT compiler's first
// compilation, PyTorch's import), to each run() against the compiled backends of the same work,
// and per device operation issued through it.
struct ImportCost {
    const char *module;
    double first_use_s, run_factor, launch_s;
};
constexpr ImportCost import_costs[] = {{"numba", 2.0, 10, 50e-6}, {"cupy", 0.5, 3, 25e-6}, {"torch", 4.5, 1, 15e-6}};

std::string seconds_text(double seconds) { return format_text("%g s", seconds); }

bool is_python(const PluginInfo &plugin) {
    return plugin.build_record && plugin.build_record->language == "Python";
}

bool imports(const PluginInfo &plugin, const std::string &module) {
    return plugin.build_record && std::ranges::count(plugin.build_record->imports, module) > 0;
}

// How the plugin's calls are paced: its run() against the nominal rates, and each cycle's own.
struct Pace {
    double run_factor = 1, cycle_overhead_s = compiled_cycle_overhead_s, launch_s = compiled_launch_s;
    bool until_max_time = false;  // its noise seldom converges: it samples to the limits
};

Pace pace_of(const PluginInfo &plugin) {
    Pace pace;
    if (!is_python(plugin)) return pace;
    pace.cycle_overhead_s = python_cycle_overhead_s;
    pace.until_max_time = plugin.is_cuda();
    for (const ImportCost &cost : import_costs)
        if (imports(plugin, cost.module)) {
            pace.run_factor = std::max(pace.run_factor, cost.run_factor);
            pace.launch_s = std::max(pace.launch_s, cost.launch_s);
        }
    return pace;
}

// The warm-up and the samples of runs of run_s each in cycles of cycle_s, by the sampling rule.
double warmup_and_samples_s(double run_s, double cycle_s, bool until_max_time, const MeasureOptions &options) {
    const double warmup_s = double(options.warmup_runs) * cycle_s;
    double samples = double(options.max_samples);
    if (!until_max_time)
        samples = std::min(samples, run_s > 0 ? std::max(double(options.min_samples), std::ceil(options.min_time_s / run_s))
                                    : options.min_time_s > 0 ? samples
                                                             : double(options.min_samples));
    // max_time_s counts from the warm-up on, and ends sampling after the sample that reaches it.
    samples = std::min(samples, std::ceil((options.max_time_s - warmup_s) / cycle_s));
    return warmup_s + std::max(1.0, samples) * cycle_s;
}

double entry_s(const Work &work, gpubench_device_kind device, const Pace &pace, const MeasureOptions &options) {
    double run_s = work.flops / nominal_flops_per_s + work.bytes / nominal_bytes_per_s;
    if (run_s == 0) run_s = work.items / nominal_items_per_s;
    if (device != GPUBENCH_DEVICE_CUDA) run_s *= nominal_cpu_slowdown;
    run_s *= pace.run_factor;
    // A run() of many small operations is bound by issuing them (NaN and negatives: none).
    if (device == GPUBENCH_DEVICE_CUDA && work.launches > 0 && std::isfinite(work.launches))
        run_s = std::max(run_s, work.launches * pace.launch_s);
    const double transfer_s = device == GPUBENCH_DEVICE_CUDA ? work.host_bytes / nominal_transfer_bytes_per_s : 0;
    // Unheld (--no-stream-hold), a GPU sample follows untimed warm calls (sampling.hpp).
    const bool warms = device == GPUBENCH_DEVICE_CUDA && !options.hold_stream && options.profile_runs == 0;
    const double warm_s = warms ? double(warm_calls_fitting(transfer_s, run_s)) * run_s : 0;
    const double cycle_s = run_s + transfer_s + warm_s + pace.cycle_overhead_s;
    const double counting_s =
        options.counters && device == GPUBENCH_DEVICE_CUDA ? counting_passes * (counting_pass_s + cycle_s) : 0;
    const double sampling_s = warmup_and_samples_s(run_s, cycle_s, pace.until_max_time, options);
    // A GPU entry's back-to-back calls for its host time (sampling.hpp); one run where no group fits.
    const double group_s = double(back_to_back_group) * run_s;
    const double budget_s = back_to_back_budget_s(sampling_s, group_s, true);
    const double back_to_back_s = device != GPUBENCH_DEVICE_CUDA ? 0
                                  : group_s > budget_s   ? run_s
                                                         : std::min(double(back_to_back_calls) * group_s, budget_s);
    return nominal_entry_overhead_s + work.host_bytes / nominal_host_bytes_per_s + sampling_s +
           back_to_back_s + counting_s;
}

}  // namespace

double nominal_entry_s(const Work &work, const PluginInfo &plugin, const MeasureOptions &options) {
    return entry_s(work, plugin.device_kind, pace_of(plugin), options);
}

double nominal_entry_s(const Work &work, gpubench_device_kind device, const MeasureOptions &options) {
    return entry_s(work, device, Pace{}, options);
}

double nominal_skipped_entry_s() { return nominal_entry_overhead_s; }

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
    if (is_python(plugin)) {
        add("Python", python_start_s);
        for (const ImportCost &module : import_costs)
            if (imports(plugin, module.module)) add(module.module, module.first_use_s);
    }
    return cost;
}

std::vector<WorkAnswer> ask_declared_work(const SweepEntries &entries, int devices, const std::filesystem::path &runner,
                                          double timeout_s, std::vector<std::string> *notes) {
    std::vector<WorkQuery> queries;
    std::vector<const PluginInfo *> queried;
    std::map<std::pair<const PluginInfo *, std::string>, size_t> query_of;  // by plugin, params
    std::vector<std::optional<size_t>> asked_in(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
        const SweepEntry &entry = entries[i];
        if (!entry.out_of_range.empty()) continue;
        const auto [found, fresh] = query_of.emplace(std::pair(entry.plugin, entry.params), queries.size());
        if (fresh) {
            queries.push_back({entry.plugin->file, entry.params, devices, {}});
            queried.push_back(entry.plugin);
        }
        queries[found->second].sizes.push_back(entry.size);
        asked_in[i] = found->second;
    }
    const std::vector<std::vector<WorkAnswer>> replies = query_declared_work(queries, runner, timeout_s);
    for (size_t q = 0; q < queries.size(); ++q) {
        std::vector<const std::string *> reasons;
        for (const WorkAnswer &reply : replies[q])
            if (const auto *reason = std::get_if<std::string>(&reply)) reasons.push_back(reason);
        if (notes && !reasons.empty())
            notes->push_back("cannot read the declared work of " + queried[q]->name +
                             (queries[q].params.empty() ? "" : " [" + queries[q].params + "]") + " at " +
                             std::to_string(reasons.size()) + " of " + std::to_string(replies[q].size()) +
                             " sizes (" + *reasons.front() + "): costed as the median");
    }
    std::vector<WorkAnswer> answers;
    std::vector<size_t> taken(queries.size(), 0);
    for (const std::optional<size_t> &query : asked_in)
        answers.push_back(query ? replies[*query][taken[*query]++] : WorkAnswer(Work{}));
    return answers;
}


}  // namespace gpubench
