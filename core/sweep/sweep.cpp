#include "sweep.hpp"

#include "entry_measurer.hpp"
#include "every_gpu_entries.hpp"
#include "lane_queue.hpp"
#include "plugin_library.hpp"
#include "rank_world.hpp"
#include "statistics.hpp"
#include "sweep_budget.hpp"
#include "thread_name.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace gpubench {
namespace {

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

std::vector<std::string> param_settings(const ParamAxes &axes, const PluginInfo &plugin) {
    std::vector<std::string> settings{""};
    for (const ParamAxis &axis : axes) {
        const auto &read = plugin.param_names;
        if (read && std::find(read->begin(), read->end(), axis.key) == read->end()) continue;
        std::vector<std::string> longer;
        for (const std::string &setting : settings)
            for (const std::string &value : axis.values)
                longer.push_back(setting + (setting.empty() ? "" : ",") + axis.key + "=" + value);
        settings = std::move(longer);
    }
    return settings;
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

namespace {

// Counts, records and shows each entry as it finishes. The device lanes of --devices finish
// entries concurrently, so all of it happens under one lock.
class EntryRecorder {
public:
    EntryRecorder(ResultsFile &results, SweepObserver &observer, SweepTally &tally,
                  const std::vector<GpuInfo> &gpus, std::chrono::steady_clock::time_point started)
        : results_(results), observer_(observer), tally_(tally), gpus_(gpus), started_(started) {}
    void begin(const PluginInfo &plugin, uint64_t size) {
        std::lock_guard<std::mutex> lock(mutex_);
        observer_.begin(plugin, size);
    }
    // Recorded with `options`: the entry's own params, the sweep's seed and threads.
    void finished(EntryResult entry, const MeasureOptions &options) {
        entry.finished_after_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        for (int index : entry.cuda_devices)
            for (const GpuInfo &gpu : gpus_)
                if (gpu.available && gpu.device == index) entry.devices.push_back(identity_of(gpu));
        entry.settings = entry_settings(options);  // skipped entries have none of their own
        std::lock_guard<std::mutex> lock(mutex_);
        tally_.count(entry.status);
        results_.add_entry(entry);
        observer_.finished(entry, options.params);
    }
    void interrupted() {
        std::lock_guard<std::mutex> lock(mutex_);
        tally_.interrupted = true;
    }
    void tick() {
        std::lock_guard<std::mutex> lock(mutex_);
        observer_.tick();
    }

private:
    std::mutex mutex_;
    ResultsFile &results_;
    SweepObserver &observer_;
    SweepTally &tally_;
    const std::vector<GpuInfo> &gpus_;
    std::chrono::steady_clock::time_point started_;
};

// Ticks the recorder's observer about 10 times a second for as long as it lives: a worker's
// entry, or one measured in this process, may take minutes, and nothing else calls out then.
class Ticker {
public:
    explicit Ticker(EntryRecorder &recorder)
        : thread_([this, &recorder] {
              name_this_thread("ticker");
              std::unique_lock<std::mutex> lock(mutex_);
              while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) {
                  lock.unlock();
                  recorder.tick();
                  lock.lock();
              }
          }) {}
    ~Ticker() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    Ticker(const Ticker &) = delete;
    Ticker &operator=(const Ticker &) = delete;

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;  // last: it starts once the rest is made
};

// Each plugin's last good entry per setting, for the default sweep's predictions of the next
// size (RunBudget): shared by the lanes, which may measure one plugin's sizes in turn.
class LastGood {
public:
    // The limits on run() (limit_s) and on set-up and checks (outside_limit_s), 0: none.
    std::optional<RunBudget> budget(const SweepEntry &entry, double limit_s, double outside_limit_s, bool behind) {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto smaller = last_.find(entry.identity().series());
        if ((limit_s <= 0 && outside_limit_s <= 0) || smaller == last_.end()) return std::nullopt;
        const EntryResult &last = smaller->second;
        // Not from a worker's first entry: its start, first compilation and lazy set-up are
        // paid once, and scaled by the work they would predict nonsense.
        const double outside_s = last.worker_entries_before == 0 ? 0.0 : last.outside_sampling_s();
        return RunBudget{limit_s, last.size, summarize(last.run_s).median, last.work, outside_s, outside_limit_s, behind};
    }
    void record(const SweepEntry &entry, const EntryResult &result) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (result.status == EntryStatus::ok) last_[entry.identity().series()] = result;
    }

private:
    std::mutex mutex_;
    std::map<EntryIdentity, EntryResult> last_;
};

// Each entry's folder where the ranks launched together meet to measure it (rank_world.hpp):
// its key and how many times this sweep measured it, so that a communicator never reuses an
// earlier one's folder. Shared by the lanes.
class RendezvousNames {
public:
    std::string next(const SweepEntry &entry, const MeasureOptions &options) {
        std::lock_guard<std::mutex> lock(mutex_);
        const EntryIdentity key = entry.identity(options.seed);
        return entry_rendezvous(options.world.folder, key, ++measured_[key]).string();
    }

private:
    std::mutex mutex_;
    std::map<EntryIdentity, unsigned> measured_;
};

// The parts of a sweep its sequences share: the budget (or null), the predictions, and the
// folders of entries measured across ranks.
struct SweepShared {
    SweepBudget *budget = nullptr;
    LastGood last_good;
    RendezvousNames rendezvous;
};

// Measures entries one after the other where they are handed in: in `pool`'s workers on the
// devices `options` names, or in this process.
class Sequence {
public:
    // `share`: the CPUs its entries record (host_share), when the sweep has lanes.
    // `outside_cap_s`: where above 0, an entry whose set-up and checks are predicted (from the
    // plugin's size before) to take longer is skipped, on schedule or not.
    Sequence(const SweepSetup &mode, const GpuInfo &gpu, WorkerPool &pool, InProcess &in_process,
             EntryRecorder &recorder, SweepShared &shared, std::optional<HostShare> share,
             double outside_cap_s = 0)
        : mode_(mode), gpu_(gpu), pool_(pool), in_process_(in_process), recorder_(recorder),
          shared_(shared), share_(std::move(share)), outside_cap_s_(outside_cap_s) {}

    // false: interrupted (the entry under way is not recorded).
    bool measure(const SweepEntry &planned, const MeasureOptions &sweep_options) {
        if (mode_.launch.interrupted && mode_.launch.interrupted()) return false;
        const PluginInfo &plugin = *planned.plugin;
        const uint64_t size = planned.size;
        SweepBudget *const sweep_budget = shared_.budget;
        double outside_limit_s = 0;
        MeasureOptions options =
            sweep_budget ? sweep_budget->limit(sweep_options, outside_limit_s) : sweep_options;
        const bool behind = outside_limit_s > 0;  // the budget's limit, before any cap below
        if (outside_cap_s_ > 0)
            outside_limit_s = outside_limit_s > 0 ? std::min(outside_limit_s, outside_cap_s_) : outside_cap_s_;
        options.params = planned.params;
        if (options.world.together()) options.rendezvous = shared_.rendezvous.next(planned, options);
        recorder_.begin(plugin, size);
        const auto began = std::chrono::steady_clock::now();
        const std::optional<RunBudget> budget =
            shared_.last_good.budget(planned, mode_.predicted_run_limit_s, outside_limit_s, behind);
        EntryResult entry;
        std::string start_refused;
        if (!plugin.is_available()) {
            entry = skipped_entry(plugin, size, "unavailable: " + plugin.unavailable_reason);
        } else if (sweep_budget && !(start_refused = sweep_budget->start_refusal(plugin)).empty()) {
            entry = skipped_entry(plugin, size, start_refused);
        } else if (plugin.is_cuda() && !gpu_.available) {
            entry = skipped_entry(plugin, size, "unavailable: " + gpu_.unavailable_reason);
        } else if (!planned.out_of_range.empty()) {
            entry = skipped_entry(plugin, size, planned.out_of_range);
        } else if (mode_.isolated) {
            std::optional<EntryResult> measured = pool_.measure(plugin, size, options, budget);
            if (!measured) return false;
            entry = std::move(*measured);
        } else {
            entry = in_process_.measure(plugin, size, options, budget);
            entry.entry_wall_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        }
        shared_.last_good.record(planned, entry);
        if (options.max_time_s < sweep_options.max_time_s && entry.status != EntryStatus::skipped)
            entry.sampling_budget_s = options.max_time_s;
        if (sweep_budget) sweep_budget->finished(planned, entry);
        entry.host_share = share_;
        recorder_.finished(std::move(entry), options);
        return true;
    }

private:
    const SweepSetup &mode_;
    const GpuInfo &gpu_;
    WorkerPool &pool_;
    InProcess &in_process_;
    EntryRecorder &recorder_;
    SweepShared &shared_;
    std::optional<HostShare> share_;
    double outside_cap_s_;
};

// An entry that --devices runs on one of its GPUs, beside the others: a CUDA plugin that can
// run here and takes one device. CPU entries, and plugins across several GPUs, run alone.
bool runs_in_a_lane(const PluginInfo &plugin, const GpuInfo &gpu) {
    return plugin.is_available() && plugin.is_cuda() && gpu.available && plugin.max_devices <= 1;
}
// A plugin across several GPUs that can run here: with lanes, it runs after them.
bool takes_every_gpu(const PluginInfo &plugin, const GpuInfo &gpu) {
    return plugin.is_available() && plugin.is_cuda() && gpu.available && plugin.max_devices > 1;
}

// --devices: one lane per GPU, each with its own worker, taking entries from a LaneQueue.
// Each lane's worker is bound to its share of the host (`shares`, one per GPU), and its CPU
// work gets no more threads than the share has.
void run_lanes(const SweepEntries &entries, const MeasureOptions &options, const std::vector<GpuInfo> &gpus,
               const std::vector<HostShare> &shares, WorkerPool &first_pool, const SweepSetup &mode,
               InProcess &in_process, EntryRecorder &recorder, SweepShared &shared) {
    LaneQueue queue(entries, options, gpus.size());
    std::atomic<bool> stop{false};
    std::mutex failure_mutex;
    std::exception_ptr failure;  // the first lane's exception (a results file that cannot be written)
    const auto lane = [&](size_t index) {
        try {
            std::optional<WorkerPool> own_pool;
            if (index > 0) own_pool.emplace(mode.launch);
            WorkerPool &pool = index > 0 ? *own_pool : first_pool;
            pool.set_host_share(shares[index]);  // replaces a worker first_pool holds unbound
            MeasureOptions on_device = options;
            on_device.cuda_device = gpus[index].device;
            on_device.cuda_devices.clear();
            on_device.cpu_threads = std::max(1, std::min(options.cpu_threads, shares[index].threads));
            Sequence sequence(mode, gpus[index], pool, in_process, recorder, shared, shares[index]);
            while (const std::optional<SweepEntry> entry = stop ? std::nullopt : queue.next(index))
                if (!sequence.measure(*entry, on_device)) {
                    if (!stop.exchange(true)) recorder.interrupted();
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
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

SweepTally run_sweep(const SweepEntries &entries, const MeasureOptions &options,
                     const std::vector<GpuInfo> &gpus, ResultsFile &results, WorkerPool &pool,
                     const SweepSetup &mode, SweepObserver &observer) {
    SweepTally tally;
    SweepEntries alone, in_lanes, every_gpu;
    const GpuInfo &gpu = gpus.at(0);
    const bool lanes = mode.isolated && gpus.size() > 1;
    for (const SweepEntry &entry : entries) {
        results.add_plugin(plugin_json(*entry.plugin));
        if (const std::optional<EntryResult> done = results.find_entry(entry.identity(options.seed))) {
            tally.count(done->status);
            ++tally.resumed;
        } else if (lanes && entry.out_of_range.empty() && takes_every_gpu(*entry.plugin, gpu)) {
            every_gpu.push_back(entry);
        } else {
            (lanes && runs_in_a_lane(*entry.plugin, gpu) ? in_lanes : alone).push_back(entry);
        }
    }
    InProcess in_process(mode.launch.host_roofline);
    EntryRecorder recorder(results, observer, tally, gpus, mode.started);
    const Ticker ticker(recorder);
    observer.planned(alone.size() + in_lanes.size() + every_gpu.size());
    const EveryGpuPlan every_gpu_plan =
        plan_every_gpu_entries(every_gpu, options, static_cast<int>(gpus.size()), mode.budget_s, mode.launch.runner,
                               mode.launch.timeout_s);
    SweepShared shared;
    std::optional<SweepBudget> budget;
    if (mode.budget_s > 0) {  // shared among the entries that will be measured
        SweepEntries measured;
        std::vector<bool> lane_flags;
        for (const SweepEntries *part : {&alone, &in_lanes})
            for (const SweepEntry &entry : *part)
                if (entry.plugin->is_available() && (!entry.plugin->is_cuda() || gpu.available) &&
                    entry.out_of_range.empty())
                    measured.push_back(entry), lane_flags.push_back(part == &in_lanes);
        budget.emplace(mode.budget_s, measured, mode.started, lane_flags, gpus.size());
    }
    shared.budget = budget ? &*budget : nullptr;
    // First what must run alone (CPU entries, which GPU workers beside them would slow down),
    // then the lanes, then the entries that take every GPU, which would stall the lanes.
    // With lanes, every entry records the CPUs it had: all of them when it ran alone.
    const std::optional<HostShare> whole_host = lanes ? std::optional<HostShare>(whole_host_share()) : std::nullopt;
    Sequence sequence(mode, gpu, pool, in_process, recorder, shared, whole_host);
    for (const SweepEntry &entry : alone)
        if (!sequence.measure(entry, options)) {
            recorder.interrupted();
            return tally;
        }
    if (!in_lanes.empty()) {
        const std::vector<HostShare> shares =
            mode.plan_host_shares ? mode.plan_host_shares(gpus) : plan_host_shares(gpus);
        if (shares.size() != gpus.size())
            throw std::logic_error("planned " + std::to_string(shares.size()) + " shares of the host for " +
                                   std::to_string(gpus.size()) + " GPUs");
        run_lanes(in_lanes, options, gpus, shares, pool, mode, in_process, recorder, shared);
        if (tally.interrupted) return tally;
    }
    const auto record_skipped = [&](const SweepEntry &entry, const std::string &why) {
        recorder.begin(*entry.plugin, entry.size);
        EntryResult skipped = skipped_entry(*entry.plugin, entry.size, why);
        skipped.host_share = whole_host;
        MeasureOptions with_params = options;
        with_params.params = entry.params;
        recorder.finished(std::move(skipped), with_params);
    };
    for (const auto &[entry, why] : every_gpu_plan.skipped) record_skipped(entry, why);
    pool.set_host_share(std::nullopt);  // lane 0 bound it to its share
    Sequence every_gpu_sequence(mode, gpu, pool, in_process, recorder, shared, whole_host,
                                mode.budget_s > 0 ? every_gpu_entry_limit_s(mode.budget_s) : 0);
    for (size_t i = 0; i < every_gpu_plan.measured.size(); ++i) {
        const SweepEntry &entry = every_gpu_plan.measured[i];
        const double predicted_s = every_gpu_plan.predicted_s[i];
        if (const double left_s = budget ? budget->left_s() : 0; budget && predicted_s > left_s) {
            char why[240];  // it may take only what the lanes left
            std::snprintf(why, sizeof why,
                          "over the sweep's budget: it holds all %zu GPUs, and is predicted to take %.3g s, "
                          "more than the %.3g s left of the budget after the lanes; --sizes %llu runs it",
                          gpus.size(), predicted_s, std::max(0.0, left_s), static_cast<unsigned long long>(entry.size));
            record_skipped(entry, why);
            continue;
        }
        if (!every_gpu_sequence.measure(entry, options)) {
            recorder.interrupted();
            return tally;
        }
    }
    return tally;
}

SweepTally run_sweep(const std::vector<std::pair<const PluginInfo *, uint64_t>> &entries,
                     const MeasureOptions &options, const std::vector<GpuInfo> &gpus,
                     ResultsFile &results, WorkerPool &pool, const SweepSetup &mode,
                     SweepObserver &observer) {
    SweepEntries planned;
    for (const auto &[plugin, size] : entries) planned.push_back({plugin, size, options.params});
    return run_sweep(planned, options, gpus, results, pool, mode, observer);
}

}  // namespace gpubench
