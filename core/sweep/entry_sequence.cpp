#include "entry_sequence.hpp"

#include "elapsed.hpp"
#include "rank_world.hpp"
#include "statistics.hpp"
#include "thread_name.hpp"

#include <algorithm>
#include <condition_variable>

namespace gpubench {

void EntryRecorder::begin(const SweepEntry &entry, int lane_gpu) {
    std::lock_guard<std::mutex> lock(mutex_);
    observer_.begin(entry, lane_gpu);
}

void EntryRecorder::finished(EntryResult entry, const MeasureOptions &options) {
    entry.sweep.finished_after_s = seconds_since(started_);
    for (int index : entry.cuda_devices)
        for (const GpuInfo &gpu : gpus_)
            if (gpu.available && gpu.device == index) entry.sweep.devices.push_back(identity_of(gpu));
    entry.settings = entry_settings(options);  // skipped entries have none of their own
    std::lock_guard<std::mutex> lock(mutex_);
    tally_.count(entry.status);
    results_.add_entry(entry);
    observer_.finished(entry, options.params);
}

void EntryRecorder::skipped(const SweepEntry &entry, const std::string &why, MeasureOptions options,
                            const std::optional<HostShare> &share) {
    begin(entry);
    EntryResult skipped(skipped_entry(*entry.plugin, entry.size, why));
    skipped.sweep.host_share = share;
    options.params = entry.params;
    finished(std::move(skipped), options);
}

void EntryRecorder::put_back(const SweepEntry &entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    observer_.put_back(entry);
}

void EntryRecorder::interrupted() {
    std::lock_guard<std::mutex> lock(mutex_);
    tally_.interrupted = true;
}

void EntryRecorder::tick() {
    std::lock_guard<std::mutex> lock(mutex_);
    observer_.tick();
}

std::jthread start_progress_ticker(EntryRecorder &recorder) {
    return std::jthread([&recorder](std::stop_token stop) {
        name_this_thread("ticker");
        std::mutex mutex;
        std::condition_variable_any wake;  // at once when stopped
        std::unique_lock<std::mutex> lock(mutex);
        while (!wake.wait_for(lock, stop, std::chrono::milliseconds(100), [&] { return stop.stop_requested(); }))
            recorder.tick();
    });
}

Measurement InProcessPlugins::measure(const PluginInfo &info, uint64_t size, const MeasureOptions &options,
                                      const std::optional<RunBudget> &budget) {
    if (!measurer_) measurer_.emplace(host_roofline_);
    auto loaded = loaded_.find(info.file);
    if (loaded == loaded_.end()) loaded = loaded_.emplace(info.file, load_plugin(info.file)).first;
    if (const auto *refusal = std::get_if<Refusal>(&loaded->second)) {
        Measurement failed = skipped_entry(info, size, "cannot load " + info.file.string() + ": " + refusal->reason);
        failed.status = EntryStatus::error;
        return failed;
    }
    const Plugin &plugin = std::get<Plugin>(loaded->second);
    Measurement entry = measurer_->measure(plugin, size, options, {}, budget);
    entry.timing.load = measurer_->prepare_seconds(plugin);  // the dlopen itself is not timed here
    return entry;
}

std::optional<RunBudget> EntrySequence::run_budget(const SweepEntry &entry, double limit_s, double outside_limit_s,
                                                   bool behind) {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    const auto smaller = shared_.last_good.find(entry.identity().series());
    if ((limit_s <= 0 && outside_limit_s <= 0) || smaller == shared_.last_good.end()) return std::nullopt;
    const EntryResult &last = smaller->second;
    // Not from a worker's first entry: its start, first compilation and lazy set-up are
    // paid once, and scaled by the work they would predict nonsense.
    const double outside_s = last.sweep.worker_entries_before == 0 ? 0.0 : last.outside_sampling_s();
    return RunBudget{limit_s, last.size, summarize(last.timing.samples.run).median, last.work, outside_s,
                     outside_limit_s, behind};
}

std::string EntrySequence::rendezvous(const SweepEntry &entry, const MeasureOptions &options) {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    const EntryIdentity key = entry.identity(options.seed);
    return entry_rendezvous(options.world.folder, key, ++shared_.measured[key]).string();
}

std::optional<Measurement> EntrySequence::skipped(const SweepEntry &planned) {
    const PluginInfo &plugin = *planned.plugin;
    const auto skip = [&](const std::string &why) { return std::optional(skipped_entry(plugin, planned.size, why)); };
    if (!plugin.is_available()) return skip("unavailable: " + plugin.unavailable_reason);
    if (shared_.budget)
        if (std::string refused = shared_.budget->start_refusal(plugin, planned.late); !refused.empty()) {
            std::optional<Measurement> entry = skip(std::move(refused));
            entry->behind_schedule = true;
            return entry;
        }
    if (plugin.is_cuda() && !gpu_.available) return skip("unavailable: " + gpu_.unavailable_reason);
    return planned.out_of_range.empty() ? std::nullopt : skip(planned.out_of_range);
}

bool EntrySequence::measure(const SweepEntry &planned, const MeasureOptions &sweep_options) {
    const SweepSetup &mode = shared_.mode;
    if (mode.launch.interrupted && mode.launch.interrupted()) return false;
    const PluginInfo &plugin = *planned.plugin;
    SweepBudget *const sweep_budget = shared_.budget;
    double outside_limit_s = 0;
    MeasureOptions options = sweep_budget ? sweep_budget->limit(sweep_options, outside_limit_s, planned.late) : sweep_options;
    const bool behind = outside_limit_s > 0;  // the budget's limit, before any cap below
    if (outside_cap_s_ > 0)
        outside_limit_s = outside_limit_s > 0 ? std::min(outside_limit_s, outside_cap_s_) : outside_cap_s_;
    options.params = planned.params;
    options.counters = options.counters && planned.counted;
    if (options.world.together()) options.rendezvous = rendezvous(planned, options);
    const bool in_lane = share_ && share_->lanes > 1;
    shared_.recorder.begin(planned, in_lane ? gpu_.device : -1);  // a lane's share
    const auto began = std::chrono::steady_clock::now();
    // A lane measures its entries slower than one GPU alone would: its cap on run() is higher.
    const std::optional<RunBudget> budget = run_budget(
        planned, mode.predicted_run_limit_s * (in_lane ? SweepBudget::lane_run_limit_factor : 1.0), outside_limit_s,
        behind);
    EntryResult entry;
    if (std::optional<Measurement> skipped_here = skipped(planned)) {
        entry = EntryResult(std::move(*skipped_here));
    } else if (mode.isolated) {
        std::optional<EntryResult> measured = pool_.measure(plugin, planned.size, options, budget);
        if (!measured) return false;
        entry = std::move(*measured);
    } else {
        entry = EntryResult(shared_.in_process.measure(plugin, planned.size, options, budget));
        entry.sweep.entry_wall_s = seconds_since(began);
    }
    if (entry.status == EntryStatus::ok) {
        std::lock_guard<std::mutex> lock(shared_.mutex);
        shared_.last_good[planned.identity().series()] = entry;
    }
    if (options.max_time_s < sweep_options.max_time_s && entry.status != EntryStatus::skipped)
        entry.sweep.sampling_budget_s = options.max_time_s;
    if (sweep_budget) sweep_budget->finished(planned, entry);
    if (shared_.put_back && !planned.late && entry.behind_schedule) {
        shared_.recorder.put_back(planned);
        shared_.put_back(planned);
        return true;
    }
    entry.sweep.host_share = share_;
    shared_.recorder.finished(std::move(entry), options);
    return true;
}

}  // namespace gpubench
