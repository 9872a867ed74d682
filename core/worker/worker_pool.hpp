// Measuring entries in worker processes (the default): whatever a plugin does there (a
// crash, abort(), exit(), a hang, a poisoned CUDA context) ends only that process, and the
// entry is recorded with what happened and in which stage. One worker serves all the entries
// of a plugin, one after the other, so that its start (process, plugin load, CUDA context) is
// paid once per plugin; it is replaced after any entry that failed, and a fresh one takes the
// next entry. Under --sanitize each entry gets a worker of its own, run by compute-sanitizer.
#pragma once

#include "entry_measurer.hpp"
#include "gpu.hpp"
#include "host_share.hpp"
#include "measure.hpp"
#include "plugin_info.hpp"
#include "roofline.hpp"
#include "sanitizer.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// The GPUs of one worker: it is shown only those of its entry (visible_devices.hpp), so it
// numbers them 0, 1, ... in the entry's order; the runner's options are renumbered on the way
// in and the entry's devices on the way back, so results keep the runner's numbering.
struct WorkerDevices {
    // The entry's devices in the runner's numbering (entry_cuda_devices; none for a CPU plugin).
    std::vector<int> runner_indices;
    std::string visible;  // the worker's CUDA_VISIBLE_DEVICES (worker_visible_devices)
    // `options` as the worker numbers devices: the entry's first is 0, its others 1, 2, ...
    MeasureOptions for_worker(MeasureOptions options) const;
    // The devices `entry` ran on, back in the runner's numbering.
    void for_runner(Measurement &entry) const;
};

struct WorkerLaunch {
    std::filesystem::path runner;       // the executable started as a worker (worker_main.hpp)
    double timeout_s = 600;             // wall-clock limit of one entry, setup to teardown
    std::function<bool()> interrupted;  // polled while waiting; true: stop the worker
    Roofline host_roofline;             // passed to the workers for CPU entries
    // --worker-per-entry: no state a library keeps in its process (a cached launch
    // configuration, a memory pool) carries from one size to the next.
    bool worker_per_entry = false;
    // --sanitize: the tool and where compute-sanitizer is; each entry in its own worker.
    std::optional<SanitizerTool> sanitizer;
    std::filesystem::path sanitizer_program;
    // A --devices lane's share of the host, which its workers are bound to; nullopt: none.
    std::optional<HostShare> host_share;
    // The runner's GPUs (their UUIDs); empty until probed: workers are shown them by index.
    std::vector<DeviceIdentity> gpus;
    // The runner's CUDA_VISIBLE_DEVICES as it started, and the UUIDs of the driver's listing
    // of GPUs where there is one (visible_devices.hpp).
    std::optional<std::vector<std::string>> inherited_visible, listed_gpus;
    // The longest line a worker may write (its entry, with its samples: far less than this at
    // any --max-samples that fits in memory); one that writes more is stopped, and says so.
    size_t max_report_line_bytes = size_t(256) << 20;
};

class WorkerProcess;

class WorkerPool {
public:
    explicit WorkerPool(WorkerLaunch launch);
    ~WorkerPool();  // ends the worker in hand
    // Starts the worker for `plugin` on the devices `options` select now, so that it loads
    // the plugin and its CUDA context while the runner carries on.
    void prestart(const PluginInfo &plugin, const MeasureOptions &options);
    // The entry as a worker measured it, or an error entry saying how the worker ended
    // (signal, exit status, time limit). nullopt when `interrupted` stopped it: such an entry
    // was not measured and is not recorded.
    std::optional<EntryResult> measure(const PluginInfo &plugin, uint64_t size,
                                       const MeasureOptions &options,
                                       const std::optional<RunBudget> &budget = std::nullopt);
    void set_host_roofline(const Roofline &roofline) { launch_.host_roofline = roofline; }
    void set_gpus(const std::vector<DeviceIdentity> &gpus) { launch_.gpus = gpus; }
    // The share the next workers are bound to; a worker in hand bound otherwise is replaced.
    void set_host_share(const std::optional<HostShare> &share) { launch_.host_share = share; }

private:
    // Sends `request` to the worker for `plugin`, starting one where none is in hand or the
    // one kept has ended. Returns the entries that worker took before; nullopt, and why in
    // `why_not`, when no worker took it.
    std::optional<size_t> hand_over(const PluginInfo &plugin, const WorkerDevices &devices,
                                    const MeasureOptions &options, const std::string &request, std::string &why_not);
    WorkerDevices devices_for(const PluginInfo &plugin, const MeasureOptions &options) const;
    WorkerLaunch launch_;
    std::unique_ptr<WorkerProcess> worker_;
};

}  // namespace gpubench
