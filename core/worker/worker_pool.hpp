// Measuring entries in worker processes (the default): whatever a plugin does there (a
// crash, abort(), exit(), a hang, a poisoned CUDA context) ends only that process, and the
// entry is recorded with what happened and in which stage. One worker serves all the entries
// of a plugin, one after the other, so that its start (process, plugin load, CUDA context) is
// paid once per plugin; it is replaced after any entry that failed, and a fresh one takes the
// next entry. Under --sanitize each entry gets a worker of its own, run by compute-sanitizer.
#pragma once

#include "entry_measurer.hpp"
#include "host_share.hpp"
#include "measure.hpp"
#include "plugin_info.hpp"
#include "roofline.hpp"
#include "sanitizer.hpp"
#include "worker_devices.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

namespace gpubench {

struct WorkerLaunch {
    std::filesystem::path runner;       // the executable started as a worker (worker_main.hpp)
    double timeout_s = 600;             // wall-clock limit of one entry, setup to teardown
    std::function<bool()> interrupted;  // polled while waiting; true: stop the worker
    Roofline host_roofline;             // passed to the workers for CPU entries
    // --worker-per-entry: a fresh worker for every entry, so that no state a library keeps
    // in its process (a cached launch configuration, a memory pool) carries from one size to
    // the next; each entry then pays the worker's start again.
    bool worker_per_entry = false;
    // --sanitize: the tool and where compute-sanitizer is; each entry in its own worker.
    std::optional<SanitizerTool> sanitizer;
    std::filesystem::path sanitizer_program;
    // A --devices lane's share of the host (host_share.hpp): its workers are bound to it.
    // nullopt: they keep every CPU the runner has.
    std::optional<HostShare> host_share;
    // The runner's GPUs (their UUIDs): each worker is shown only its entry's (worker_devices.hpp).
    // Empty until probed: a worker started before then is shown them by index.
    std::vector<DeviceIdentity> gpus;
    // The runner's CUDA_VISIBLE_DEVICES as it started, and the UUIDs of the driver's listing
    // of GPUs where there is one (visible_devices.hpp).
    std::optional<std::vector<std::string>> inherited_visible, listed_gpus;
    // The longest line a worker may write: its entry holds its samples (1000 of each series by
    // default, far less than this at any --max-samples that fits in memory). A worker (its
    // plugin) that writes more without ending the line is stopped, and its entry says so.
    size_t max_report_line_bytes = size_t(256) << 20;
};

class WorkerProcess;

class WorkerPool {
public:
    explicit WorkerPool(WorkerLaunch launch);
    ~WorkerPool();  // ends the worker in hand
    // Starts the worker for `plugin` on the devices `options` select now (it loads the plugin
    // and creates its CUDA context while the runner carries on); measure() of that plugin
    // there then finds it ready.
    void prestart(const PluginInfo &plugin, const MeasureOptions &options);
    // The entry as a worker measured it, or an error entry saying how the worker ended
    // (signal, exit status, time limit). nullopt when `interrupted` stopped it: such an entry
    // was not measured and is not recorded.
    std::optional<EntryResult> measure(const PluginInfo &plugin, uint64_t size,
                                       const MeasureOptions &options,
                                       const std::optional<RunBudget> &budget = std::nullopt);
    void set_host_roofline(const Roofline &roofline) { launch_.host_roofline = roofline; }
    void set_gpus(const std::vector<DeviceIdentity> &gpus) { launch_.gpus = gpus; }
    // The share the next workers are bound to; a worker in hand bound otherwise (one
    // prestarted without a share, say) is replaced at the next entry.
    void set_host_share(const std::optional<HostShare> &share) { launch_.host_share = share; }

private:
    void retire();  // lets the worker in hand exit (its request pipe closed) and reaps it
    // Sends `request` to the worker for `plugin`, starting one where none is in hand or the
    // one kept has ended; false, and why in `failed`, when no worker took it.
    bool hand_over(const PluginInfo &plugin, const WorkerDevices &devices, const MeasureOptions &options,
                   const std::string &request, EntryResult &failed, bool &started, size_t &entries_before);
    WorkerDevices devices_for(const PluginInfo &plugin, const MeasureOptions &options) const;
    bool fits(const WorkerProcess &worker, const PluginInfo &plugin, const WorkerDevices &devices) const;
    WorkerLaunch launch_;
    std::unique_ptr<WorkerProcess> worker_;
};

}  // namespace gpubench
