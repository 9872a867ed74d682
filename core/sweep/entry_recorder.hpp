// How a sweep tells of its entries: each finished one counted (SweepTally), added to the results
// file and shown to the observer, under one lock, for --devices' lanes finish entries
// concurrently; and the observer's ticks while an entry runs.
#pragma once

#include "gpu.hpp"
#include "host_share.hpp"
#include "measure.hpp"
#include "results.hpp"
#include "sweep.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gpubench {

class EntryRecorder {
public:
    EntryRecorder(ResultsFile &results, SweepObserver &observer, SweepTally &tally,
                  const std::vector<GpuInfo> &gpus, std::chrono::steady_clock::time_point started)
        : results_(results), observer_(observer), tally_(tally), gpus_(gpus), started_(started) {}
    void begin(const PluginInfo &plugin, uint64_t size);
    // Recorded with `options`: the entry's own params, the sweep's seed and threads.
    void finished(EntryResult entry, const MeasureOptions &options);
    // `entry` begun and finished as skipped for `why`, recording the CPUs it had (`share`).
    void skipped(const SweepEntry &entry, const std::string &why, MeasureOptions options,
                 const std::optional<HostShare> &share);
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

// Ticks the recorder's observer about 10 times a second for as long as it lives: a worker's
// entry, or one measured in this process, may take minutes, and nothing else calls out then.
class ProgressTicker {
public:
    explicit ProgressTicker(EntryRecorder &recorder);
    ~ProgressTicker();
    ProgressTicker(const ProgressTicker &) = delete;
    ProgressTicker &operator=(const ProgressTicker &) = delete;

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;  // last: it starts once the rest is made
};

}  // namespace gpubench
