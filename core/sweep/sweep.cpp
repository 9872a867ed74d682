#include "sweep.hpp"

#include "declared_params.hpp"
#include "entry_cost.hpp"
#include "entry_sequence.hpp"
#include "lane_queue.hpp"
#include "sweep_budget.hpp"
#include "text_format.hpp"
#include "thread_name.hpp"
#include "work_query.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace gpubench {

namespace {

bool reads(const PluginInfo &plugin, const std::string &key) {
    return !plugin.param_names || std::ranges::count(*plugin.param_names, key) > 0;
}

// The axis's values for `plugin`: "*" is its declared choices.
const std::vector<std::string> &axis_values(const ParamAxis &axis, const PluginInfo &plugin) {
    const ParamSpec *declared = declared_param(plugin, axis.key);
    const bool every = axis.values == std::vector<std::string>{"*"};
    return every && declared && declared->kind == GPUBENCH_PARAM_CHOICE ? declared->choices : axis.values;
}

}  // namespace

std::vector<std::string> param_settings(const ParamAxes &axes, const PluginInfo &plugin) {
    std::vector<std::string> settings{""};
    for (const ParamAxis &axis : axes) {
        if (!reads(plugin, axis.key)) continue;
        std::vector<std::string> longer;
        for (const std::string &setting : settings)
            for (const std::string &value : axis_values(axis, plugin))
                longer.push_back(setting + (setting.empty() ? "" : ",") + axis.key + "=" + value);
        settings = std::move(longer);
    }
    return settings;
}

std::string param_values_problem(const std::vector<const PluginInfo *> &plugins, const ParamAxes &axes) {
    for (const ParamAxis &axis : axes)
        for (const PluginInfo *plugin : plugins) {
            if (!reads(*plugin, axis.key)) continue;
            const ParamSpec *declared = declared_param(*plugin, axis.key);
            const std::string takes = declared ? plugin->name + "'s " + axis.key + " is " + allowed_text(*declared)
                                               : plugin->name + " declares no values for " + axis.key;
            for (const std::string &value : axis.values) {
                if (value == "*" && !(declared && declared->kind == GPUBENCH_PARAM_CHOICE))
                    return "--param " + axis.key + "=*: " + takes + " (* stands for a choice's values)";
                if (value != "*" && declared && !value_problem(*declared, value).empty())
                    return "--param " + axis.key + "=" + value + ": " + takes;
            }
        }
    return "";
}

SweepEntries sweep_entries(const std::vector<const PluginInfo *> &plugins,
                           const std::optional<std::vector<uint64_t>> &sizes, const ParamAxes &axes) {
    SweepEntries entries;
    for (const PluginInfo *plugin : plugins)
        for (const std::string &params : param_settings(axes, *plugin))
            for (uint64_t size : sizes ? *sizes : plugin->default_sizes)
                entries.push_back({plugin, size, params});
    return entries;
}

void count_series_ends_only(SweepEntries &entries) {
    std::map<std::pair<const PluginInfo *, std::string>, std::pair<uint64_t, uint64_t>> ends;  // smallest, largest
    for (const SweepEntry &e : entries)
        if (e.out_of_range.empty()) {
            const auto [found, fresh] = ends.try_emplace({e.plugin, e.params}, e.size, e.size);
            found->second = {std::min(found->second.first, e.size), std::max(found->second.second, e.size)};
        }
    for (SweepEntry &e : entries) {
        const auto found = ends.find({e.plugin, e.params});
        e.counted = found != ends.end() && (e.size == found->second.first || e.size == found->second.second);
    }
}

namespace {

// A CUDA plugin that can run here: with lanes, one on one device runs in a lane beside the
// others, one across several GPUs after them; CPU entries run alone.
bool runs_on_gpu(const PluginInfo &plugin, const GpuInfo &gpu) {
    return plugin.is_available() && plugin.is_cuda() && gpu.available;
}

// The entries the results file does not hold yet, by when they run (with `lanes`: alone, in
// the lanes, or after them taking every GPU; else all alone). Those it holds are counted in
// `tally` as recorded; each entry's plugin is added to the file.
struct SweepParts {
    SweepEntries alone, in_lanes, every_gpu;
    size_t size() const { return alone.size() + in_lanes.size() + every_gpu.size(); }
};
SweepParts sweep_parts(const SweepEntries &entries, std::optional<uint64_t> seed, const GpuInfo &gpu, bool lanes,
                       ResultsFile &results, SweepTally &tally) {
    SweepParts parts;
    for (const SweepEntry &entry : entries) {
        results.add_plugin(plugin_json(*entry.plugin));
        if (const std::optional<EntryResult> done = results.find_entry(entry.identity(seed))) {
            tally.count(done->status);
            ++tally.resumed;
        } else if (!lanes || !runs_on_gpu(*entry.plugin, gpu)) {
            parts.alone.push_back(entry);
        } else if (entry.plugin->max_devices > 1) {
            (entry.out_of_range.empty() ? parts.every_gpu : parts.alone).push_back(entry);
        } else {
            parts.in_lanes.push_back(entry);
        }
    }
    return parts;
}

// --budget's share among the entries that will be measured, alone or in the lanes; nullopt
// without a budget.
std::optional<SweepBudget> sweep_budget(const SweepParts &parts, const SweepSetup &mode,
                                        const std::vector<GpuInfo> &gpus) {
    if (mode.budget_s <= 0) return std::nullopt;
    SweepEntries measured;
    std::vector<bool> lane_flags;
    for (const SweepEntries *part : {&parts.alone, &parts.in_lanes})
        for (const SweepEntry &entry : *part)
            if (entry.plugin->is_available() && (!entry.plugin->is_cuda() || gpus.at(0).available) &&
                entry.out_of_range.empty())
                measured.push_back(entry), lane_flags.push_back(part == &parts.in_lanes);
    return std::optional<SweepBudget>(std::in_place, mode.budget_s, measured, mode.started, lane_flags, gpus.size());
}

// Each lane's share of the host, one per GPU (SweepSetup::plan_host_shares).
std::vector<HostShare> lane_shares(const SweepSetup &mode, const std::vector<GpuInfo> &gpus) {
    std::vector<HostShare> shares = mode.plan_host_shares ? mode.plan_host_shares(gpus) : plan_host_shares(gpus);
    if (shares.size() != gpus.size())
        throw std::logic_error("planned " + std::to_string(shares.size()) + " shares of the host for " +
                               std::to_string(gpus.size()) + " GPUs");
    return shares;
}

// --devices: one lane per GPU, each with its own worker bound to its share of the host
// (`shares`, one per GPU), taking entries from a LaneQueue.
void run_lanes(const SweepEntries &entries, const MeasureOptions &options, const std::vector<GpuInfo> &gpus,
               const std::vector<HostShare> &shares, WorkerPool &first_pool, SweepShared &shared) {
    LaneQueue queue(entries, options, gpus.size(), !shared.budget);
    shared.put_back = [&queue](const SweepEntry &entry) { queue.put_back(entry); };
    std::atomic<bool> stop{false};
    std::mutex failure_mutex;
    std::exception_ptr failure;  // the first lane's exception (a results file that cannot be written)
    const auto lane = [&](size_t index) {
        try {
            std::optional<WorkerPool> own_pool;
            if (index > 0) own_pool.emplace(shared.mode.launch);
            WorkerPool &pool = index > 0 ? *own_pool : first_pool;
            pool.set_host_share(shares[index]);  // replaces a worker first_pool holds unbound
            MeasureOptions on_device = options;
            on_device.cuda_device = gpus[index].device;
            on_device.cuda_devices.clear();
            on_device.cpu_threads = std::max(1, std::min(options.cpu_threads, shares[index].threads));
            EntrySequence sequence(shared, gpus[index], pool, shares[index]);
            while (const std::optional<SweepEntry> entry = stop ? std::nullopt : queue.next(index))
                if (!sequence.measure(*entry, on_device)) {
                    if (!stop.exchange(true)) shared.recorder.interrupted();
                    return;
                }
        } catch (...) {
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            stop = true;
        }
    };
    std::vector<std::thread> lanes;
    for (size_t index = 1; index < gpus.size(); ++index)
        lanes.emplace_back([&lane, index] {
            name_this_thread("lane");
            lane(index);
        });
    lane(0);
    for (std::thread &t : lanes) t.join();
    shared.put_back = nullptr;
    if (failure) std::rethrow_exception(failure);
}

// With --devices lanes, the entries that take every GPU at once (a plugin across several GPUs,
// such as an all-reduce) run after the lanes, as every lane would wait while one runs. A
// budgeted sweep plans them with their whole cost: a size predicted, from its declared work at
// entry_cost.hpp's nominal rates, to take longer than every_gpu_entry_limit_s is skipped before
// any worker starts; after the lanes, one predicted to take more than what is left of the budget
// (a one-GPU sweep has no such entries: they take only the time the lanes saved); and its worker
// skips a larger size whose set-up and checks, scaled from the size before, would take longer.
double every_gpu_entry_limit_s(double budget_s) { return budget_s / 25; }  // every lane idles meanwhile

struct EveryGpuPlan {
    // To run, after the lanes, each with its whole cost, its plugin's start in the first of its
    // plugin's (0: unknown).
    std::vector<std::pair<SweepEntry, double>> measured;
    std::vector<std::pair<SweepEntry, std::string>> skipped;  // with why
};

// Without a budget every entry is measured and none predicted; an entry whose work cannot be
// read (work_query.hpp, within `timeout_s`) is measured.
EveryGpuPlan plan_every_gpu_entries(const SweepEntries &entries, const MeasureOptions &options, int gpus,
                                    double budget_s, const std::filesystem::path &runner, double timeout_s) {
    EveryGpuPlan plan;
    if (budget_s <= 0 || entries.empty()) {
        for (const SweepEntry &entry : entries) plan.measured.emplace_back(entry, 0.0);
        return plan;
    }
    const std::vector<WorkAnswer> answers = ask_declared_work(entries, gpus, runner, timeout_s);
    const double limit_s = every_gpu_entry_limit_s(budget_s);
    std::set<const PluginInfo *> started;  // plugins with a measured entry before this one
    for (size_t i = 0; i < entries.size(); ++i) {
        const Work *work = std::get_if<Work>(&answers[i]);
        const double predicted_s = work ? nominal_entry_s(*work, GPUBENCH_DEVICE_CUDA, options) : 0.0;
        if (predicted_s <= limit_s) {
            const bool first = started.insert(entries[i].plugin).second;
            plan.measured.emplace_back(
                entries[i], work ? predicted_s + (first ? nominal_start_cost(*entries[i].plugin).seconds : 0) : 0.0);
            continue;
        }
        plan.skipped.emplace_back(
            entries[i],
            format_text("over the sweep's budget: it holds all %d GPUs, and is predicted to take %.3g s (set-up "
                        "and checks of %.3g GB on the host, and sampling, at nominal rates), above the %.3g s an "
                        "entry on every GPU may take (1/25 of the budget); --sizes %llu runs it",
                        gpus, predicted_s, work->host_bytes / 1e9, limit_s,
                        static_cast<unsigned long long>(entries[i].size)));
    }
    return plan;
}

// After the lanes: those the plan skips, and those predicted to take more than what the lanes
// left of the budget, are recorded as skipped with why.
void run_every_gpu_entries(const EveryGpuPlan &plan, const MeasureOptions &options, const std::vector<GpuInfo> &gpus,
                           WorkerPool &pool, SweepShared &shared, const std::optional<HostShare> &whole_host) {
    for (const auto &[entry, why] : plan.skipped) shared.recorder.skipped(entry, why, options, whole_host);
    pool.set_host_share(std::nullopt);  // lane 0 bound it to its share
    const double budget_s = shared.mode.budget_s;
    EntrySequence sequence(shared, gpus.at(0), pool, whole_host, budget_s > 0 ? every_gpu_entry_limit_s(budget_s) : 0);
    for (const auto &[entry, predicted_s] : plan.measured) {
        if (const double left_s = shared.budget ? shared.budget->left_s() : 0; shared.budget && predicted_s > left_s) {
            // It may take only what the lanes left.
            shared.recorder.skipped(
                entry,
                format_text("over the sweep's budget: it holds all %zu GPUs, and is predicted to take %.3g s, "
                            "more than the %.3g s left of the budget after the lanes; --sizes %llu runs it",
                            gpus.size(), predicted_s, std::max(0.0, left_s),
                            static_cast<unsigned long long>(entry.size)),
                options, whole_host);
            continue;
        }
        if (!sequence.measure(entry, options)) {
            shared.recorder.interrupted();
            return;
        }
    }
}

}  // namespace

SweepTally run_sweep(const SweepEntries &entries, const MeasureOptions &options,
                     const std::vector<GpuInfo> &gpus, ResultsFile &results, WorkerPool &pool,
                     const SweepSetup &mode, SweepObserver &observer) {
    SweepTally tally;
    const bool lanes = mode.isolated && gpus.size() > 1;
    const SweepParts parts = sweep_parts(entries, options.seed, gpus.at(0), lanes, results, tally);
    EntryRecorder recorder(results, observer, tally, gpus, mode.started);
    const std::jthread ticker = start_progress_ticker(recorder);
    observer.planned(parts.size());
    const EveryGpuPlan every_gpu_plan =
        plan_every_gpu_entries(parts.every_gpu, options, static_cast<int>(gpus.size()), mode.budget_s,
                               mode.launch.runner, mode.launch.timeout_s);
    std::optional<SweepBudget> budget = sweep_budget(parts, mode, gpus);
    SweepShared shared(mode, recorder, budget ? &*budget : nullptr);
    // With lanes, every entry records the CPUs it had: all of them when it ran alone.
    const std::optional<HostShare> whole_host = lanes ? std::optional<HostShare>(whole_host_share()) : std::nullopt;
    EntrySequence sequence(shared, gpus.at(0), pool, whole_host);
    // With lanes, what the schedule skips alone is taken up after them, late (sweep_budget.hpp).
    SweepEntries late_alone;
    if (!parts.in_lanes.empty()) shared.put_back = [&](const SweepEntry &entry) { late_alone.push_back(entry); };
    const auto measure_each = [&](const SweepEntries &part, bool late) {
        for (SweepEntry entry : part)
            if (entry.late = late; !sequence.measure(entry, options)) return recorder.interrupted(), false;
        return true;
    };
    if (!measure_each(parts.alone, false)) return tally;
    if (!parts.in_lanes.empty()) {
        if (budget) budget->lanes_begin();
        run_lanes(parts.in_lanes, options, gpus, lane_shares(mode, gpus), pool, shared);
        if (tally.interrupted || !measure_each(late_alone, true)) return tally;
    }
    run_every_gpu_entries(every_gpu_plan, options, gpus, pool, shared, whole_host);
    return tally;
}

}  // namespace gpubench
