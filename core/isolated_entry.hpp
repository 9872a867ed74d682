// Measuring one entry in a worker process of its own (the runner re-executed in worker mode):
// whatever the plugin does there (a crash, abort(), exit(), a hang, a poisoned CUDA context)
// ends only that process, and the runner records what happened and in which stage.
#pragma once

#include "measure.hpp"
#include "plugin_library.hpp"

#include <filesystem>
#include <functional>
#include <optional>

namespace gpubench {

struct WorkerLaunch {
    std::filesystem::path runner;       // the executable started as `runner --worker ...`
    double timeout_s = 600;             // wall-clock limit of one entry, setup to teardown
    std::function<bool()> interrupted;  // polled while waiting; true: stop the worker
    std::function<void()> tick;         // called while waiting (about 10 times a second)
};

// The entry as the worker measured it, or an error entry saying how the worker ended
// (signal, exit status, time limit). nullopt when `launch.interrupted` stopped it: such an
// entry was not measured and is not recorded.
std::optional<EntryResult> measure_in_worker(const Plugin &plugin, uint64_t size,
                                             const MeasureOptions &options,
                                             const WorkerLaunch &launch);

}  // namespace gpubench
