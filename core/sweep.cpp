#include "sweep.hpp"

#include "entry_measurer.hpp"
#include "plugin_instance.hpp"
#include "statistics.hpp"

#include <cstdio>
#include <map>

namespace gpubench {
namespace {

void count(SweepTally &tally, EntryStatus status) {
    switch (status) {
        case EntryStatus::ok: ++tally.ok; break;
        case EntryStatus::verification_failed: ++tally.verification_failed; break;
        case EntryStatus::error: ++tally.errors; break;
        case EntryStatus::skipped: ++tally.skipped; break;
    }
}

}  // namespace

double predicted_run_s(const Plugin &plugin, uint64_t size, const std::string &params,
                       const EntryResult &smaller) {
    if (smaller.run_s.empty() || smaller.size >= size) return 0;
    try {
        const Work next = query_work(plugin.api(), size, params), last = smaller.work;
        const double ratio = last.flops > 0 && next.flops > 0   ? next.flops / last.flops
                             : last.bytes > 0 && next.bytes > 0 ? next.bytes / last.bytes
                             : last.items > 0 && next.items > 0 ? next.items / last.items
                                                                : double(size) / double(smaller.size);
        return summarize(smaller.run_s).median * ratio;
    } catch (...) {  // work() failed: the worker will say why
        return 0;
    }
}

std::vector<std::pair<const Plugin *, uint64_t>> sweep_entries(
    const std::vector<const Plugin *> &plugins, const std::optional<std::vector<uint64_t>> &sizes) {
    std::vector<std::pair<const Plugin *, uint64_t>> entries;
    for (const Plugin *plugin : plugins) {
        const gpubench_plugin &api = plugin->api();
        for (uint64_t size : sizes ? *sizes
                                   : std::vector<uint64_t>(api.default_sizes,
                                                           api.default_sizes + api.default_size_count))
            entries.emplace_back(plugin, size);
    }
    return entries;
}

SweepTally run_sweep(const std::vector<std::pair<const Plugin *, uint64_t>> &entries,
                     const MeasureOptions &options, GpuInfo gpu, ResultsFile &results,
                     WorkerPool &pool, const SweepMode &mode, SweepObserver &observer) {
    SweepTally tally;
    std::vector<std::pair<const Plugin *, uint64_t>> todo;
    for (const auto &[plugin, size] : entries) {
        results.add_plugin(plugin_json(*plugin));
        if (const nlohmann::json *done =
                results.find_entry(plugin->name(), size, options.params, options.seed)) {
            count(tally, entry_status_from_string(done->value("status", "error")));
            ++tally.resumed;
        } else {
            todo.emplace_back(plugin, size);
        }
    }
    std::optional<EntryMeasurer> in_process;
    if (!mode.isolated) in_process.emplace(mode.launch.host_roofline);
    const auto interrupted = [&] { return mode.launch.interrupted && mode.launch.interrupted(); };
    observer.planned(todo.size());
    std::map<const Plugin *, EntryResult> last_ok;  // for the default sweep's predictions
    for (const auto &[plugin, size] : todo) {
        if (interrupted()) {
            tally.interrupted = true;
            break;
        }
        observer.begin(*plugin, size);
        const auto began = std::chrono::steady_clock::now();
        EntryResult entry;
        double predicted = 0;
        if (mode.predicted_run_limit_s > 0 && last_ok.count(plugin))
            predicted = predicted_run_s(*plugin, size, options.params, last_ok[plugin]);
        if (plugin->is_cuda() && !gpu.available) {
            entry = skipped_entry(*plugin, size, "unavailable: " + gpu.unavailable_reason);
        } else if (predicted > mode.predicted_run_limit_s && mode.predicted_run_limit_s > 0) {
            char why[200];
            std::snprintf(why, sizeof why,
                          "over the default sweep's budget: one run() is predicted to take %.3g s "
                          "(from size %llu), above %.3g s; --sizes %llu runs it", predicted,
                          static_cast<unsigned long long>(last_ok[plugin].size),
                          mode.predicted_run_limit_s, static_cast<unsigned long long>(size));
            entry = skipped_entry(*plugin, size, why);
        } else if (mode.isolated) {
            std::optional<EntryResult> measured = pool.measure(*plugin, size, options);
            if (!measured) {
                tally.interrupted = true;
                break;
            }
            entry = std::move(*measured);
        } else {
            entry = in_process->measure(*plugin, size, options);
            entry.entry_wall_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        }
        entry.finished_after_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - mode.started).count();
        if (entry.status == EntryStatus::ok) last_ok[plugin] = entry;
        count(tally, entry.status);
        results.add_entry(entry_json(entry, options));
        observer.finished(entry);
    }
    return tally;
}

}  // namespace gpubench
