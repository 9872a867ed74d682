// Measuring a sweep's entries one after the other: in a worker (worker_pool.hpp) or, with
// --in-process, in this process, each skipped first where it cannot run here, its sampling
// time cut to the budget, its run() limited by the predictions from the size before it, and
// recorded as it finishes. The sweep runs one such sequence, or one per --devices lane at
// once: what they share is locked.
#pragma once

#include "entry_measurer.hpp"
#include "gpu.hpp"
#include "host_share.hpp"
#include "measure.hpp"
#include "plugin_library.hpp"
#include "results.hpp"
#include "sweep.hpp"
#include "sweep_budget.hpp"
#include "worker_pool.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace gpubench {

// How a sweep tells of its entries: each finished one counted (SweepTally), added to the results
// file and shown to the observer, under one lock, for --devices' lanes finish entries
// concurrently; and the observer's ticks while an entry runs.
class EntryRecorder {
public:
    EntryRecorder(ResultsFile &results, SweepObserver &observer, SweepTally &tally,
                  const std::vector<GpuInfo> &gpus, std::chrono::steady_clock::time_point started)
        : results_(results), observer_(observer), tally_(tally), gpus_(gpus), started_(started) {}
    void begin(const SweepEntry &entry, int lane_gpu = -1);  // SweepObserver::begin
    // Recorded with `options`: the entry's own params, the sweep's seed and threads.
    void finished(EntryResult entry, const MeasureOptions &options);
    // `entry` begun and finished as skipped for `why`, recording the CPUs it had (`share`).
    void skipped(const SweepEntry &entry, const std::string &why, MeasureOptions options,
                 const std::optional<HostShare> &share);
    void put_back(const SweepEntry &entry);
    void interrupted();
    void tick();

private:
    std::mutex mutex_;
    ResultsFile &results_;
    SweepObserver &observer_;
    SweepTally &tally_;
    const std::vector<GpuInfo> &gpus_;
    std::chrono::steady_clock::time_point started_;
};

// Ticks the recorder's observer about 10 times a second until the thread is stopped (its
// destructor stops it): a worker's entry, or one measured in this process, may take minutes,
// and nothing else calls out then.
std::jthread start_progress_ticker(EntryRecorder &recorder);

// --in-process: the plugins are loaded into this process (already scanned), once each.
class InProcessPlugins {
public:
    explicit InProcessPlugins(const Roofline &host_roofline) : host_roofline_(host_roofline) {}
    Measurement measure(const PluginInfo &info, uint64_t size, const MeasureOptions &options,
                        const std::optional<RunBudget> &budget);

private:
    Roofline host_roofline_;
    std::optional<EntryMeasurer> measurer_;
    std::map<std::filesystem::path, std::variant<Plugin, Refusal>> loaded_;
};

// What the sequences of one sweep share (the budget may be null), and what they learn, under
// one lock: each plugin's last good entry per setting, for the default sweep's predictions of
// the next size (RunBudget: the lanes may measure one plugin's sizes in turn), and how often each
// entry was measured, for the folder where its ranks launched together meet (rank_world.hpp),
// which a communicator never reuses.
struct SweepShared {
    SweepShared(const SweepSetup &mode, EntryRecorder &recorder, SweepBudget *budget)
        : mode(mode), in_process(mode.launch.host_roofline), recorder(recorder), budget(budget) {}
    const SweepSetup &mode;
    InProcessPlugins in_process;
    EntryRecorder &recorder;
    SweepBudget *budget;
    std::mutex mutex;
    std::map<EntryIdentity, EntryResult> last_good;  // by series
    std::map<EntryIdentity, unsigned> measured;      // by entry, with the sweep's seed
    // While lanes run: an entry skipped for the budget's schedule, to take up again later.
    std::function<void(const SweepEntry &)> put_back;
};

// Measures entries one after the other where they are handed in: in `pool`'s workers on the
// devices the options name, or in this process.
class EntrySequence {
public:
    // `share`: the CPUs its entries record, when the sweep has lanes. `outside_cap_s` (> 0): an
    // entry whose set-up and checks are predicted to take longer is skipped, on schedule or not.
    EntrySequence(SweepShared &shared, const GpuInfo &gpu, WorkerPool &pool, std::optional<HostShare> share,
                  double outside_cap_s = 0)
        : shared_(shared), gpu_(gpu), pool_(pool), share_(std::move(share)), outside_cap_s_(outside_cap_s) {}

    // false: interrupted (the entry under way is not recorded).
    bool measure(const SweepEntry &planned, const MeasureOptions &sweep_options);

private:
    // `planned` skipped, with why (the budget's start refusal among the reasons); nullopt: measure it.
    std::optional<Measurement> skipped(const SweepEntry &planned);
    // The limits on run() (limit_s) and on set-up and checks (outside_limit_s), 0: none.
    std::optional<RunBudget> run_budget(const SweepEntry &entry, double limit_s, double outside_limit_s, bool behind);
    std::string rendezvous(const SweepEntry &entry, const MeasureOptions &options);
    SweepShared &shared_;
    const GpuInfo &gpu_;
    WorkerPool &pool_;
    std::optional<HostShare> share_;
    double outside_cap_s_;
};

}  // namespace gpubench
