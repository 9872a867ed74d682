#include "sweep.hpp"

#include "entry_measurer.hpp"
#include "plugin_library.hpp"
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

// --in-process: the plugins are loaded into this process (already scanned), once each.
class InProcess {
public:
    explicit InProcess(const Roofline &host_roofline) : host_roofline_(host_roofline) {}
    EntryResult measure(const PluginInfo &info, uint64_t size, const MeasureOptions &options,
                        const std::optional<RunBudget> &budget) {
        if (!measurer_) measurer_.emplace(host_roofline_);
        auto loaded = loaded_.find(info.file);
        if (loaded == loaded_.end()) loaded = loaded_.emplace(info.file, load_plugin(info.file)).first;
        if (const auto *refusal = std::get_if<Refusal>(&loaded->second)) {
            EntryResult failed = skipped_entry(info, size, "cannot load " + info.file.string() +
                                                               ": " + refusal->reason);
            failed.status = EntryStatus::error;
            return failed;
        }
        const Plugin &plugin = std::get<Plugin>(loaded->second);
        EntryResult entry = measurer_->measure(plugin, size, options, {}, budget);
        entry.load_s = measurer_->prepare_seconds(plugin);  // the dlopen itself is not timed here
        return entry;
    }

private:
    Roofline host_roofline_;
    std::optional<EntryMeasurer> measurer_;
    std::map<std::filesystem::path, std::variant<Plugin, Refusal>> loaded_;
};

}  // namespace

std::vector<std::pair<const PluginInfo *, uint64_t>> sweep_entries(
    const std::vector<const PluginInfo *> &plugins, const std::optional<std::vector<uint64_t>> &sizes) {
    std::vector<std::pair<const PluginInfo *, uint64_t>> entries;
    for (const PluginInfo *plugin : plugins)
        for (uint64_t size : sizes ? *sizes : plugin->default_sizes) entries.emplace_back(plugin, size);
    return entries;
}

SweepTally run_sweep(const std::vector<std::pair<const PluginInfo *, uint64_t>> &entries,
                     const MeasureOptions &options, GpuInfo gpu, ResultsFile &results,
                     WorkerPool &pool, const SweepMode &mode, SweepObserver &observer) {
    SweepTally tally;
    std::vector<std::pair<const PluginInfo *, uint64_t>> todo;
    for (const auto &[plugin, size] : entries) {
        results.add_plugin(plugin_json(*plugin));
        if (const nlohmann::json *done =
                results.find_entry(plugin->name, size, options.params, options.seed)) {
            count(tally, entry_status_from_string(done->value("status", "error")));
            ++tally.resumed;
        } else {
            todo.emplace_back(plugin, size);
        }
    }
    InProcess in_process(mode.launch.host_roofline);
    const auto interrupted = [&] { return mode.launch.interrupted && mode.launch.interrupted(); };
    observer.planned(todo.size());
    std::map<const PluginInfo *, EntryResult> last_ok;  // for the default sweep's predictions
    for (const auto &[plugin, size] : todo) {
        if (interrupted()) {
            tally.interrupted = true;
            break;
        }
        observer.begin(*plugin, size);
        const auto began = std::chrono::steady_clock::now();
        EntryResult entry;
        std::optional<RunBudget> budget;
        if (mode.predicted_run_limit_s > 0 && last_ok.count(plugin)) {
            const EntryResult &smaller = last_ok[plugin];
            budget = RunBudget{mode.predicted_run_limit_s, smaller.size,
                               summarize(smaller.run_s).median, smaller.work};
        }
        if (!plugin->is_available()) {
            entry = skipped_entry(*plugin, size, "unavailable: " + plugin->unavailable_reason);
        } else if (plugin->is_cuda() && !gpu.available) {
            entry = skipped_entry(*plugin, size, "unavailable: " + gpu.unavailable_reason);
        } else if (mode.isolated) {
            std::optional<EntryResult> measured = pool.measure(*plugin, size, options, budget);
            if (!measured) {
                tally.interrupted = true;
                break;
            }
            entry = std::move(*measured);
        } else {
            entry = in_process.measure(*plugin, size, options, budget);
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
