// The worker process: the runner's own executable started as
//   runner --gpubench-worker PLUGIN_FILE [--cpus LIST --threads N] [--prepare THREADS [--trace]]
// with its request pipe as descriptor 3 and its report pipe as 4; it is shown only the GPUs of
// its entries, and measures on the first (its device 0: worker_pool.hpp). --cpus binds it to a
// --devices lane's share of the host (host_share.hpp) before the plugin loads. It loads its
// plugin (and a CUDA plugin's context) at once, and with --prepare and --trace readies what
// the first entry would pay for (WorkerReadiness); then it measures the entries the runner asks
// for, one request line each, until the request pipe closes or the CUDA context is lost. The
// runner's main() hands over when its first argument is worker_flag.
//
// On the pipes: requests, one JSON line each (WorkerRequest), and for each request a report, a
// stream of JSON lines: {"stage": "setup"} as each stage begins, then {"entry": {...}}, its
// Measurement in the results file's encoding of an entry, less the runner's notes
// (entry_json.hpp).
#pragma once

#include "entry_json.hpp"
#include "entry_measurer.hpp"
#include "host_share.hpp"
#include "measure.hpp"
#include "roofline.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

inline constexpr const char *worker_flag = "--gpubench-worker";
inline constexpr int worker_request_fd = 3, worker_report_fd = 4;

// Runs the worker; returns its exit status (0 after serving, 2 on a malformed command line).
int worker_main(int argc, const char *const *argv);
// What a worker readies before its first entry (--prepare, --trace).
struct WorkerReadiness {
    int prepare_threads = 0;  // the plugin's prepare() for this many threads; 0: at the first entry
    bool trace = false;       // load the device trace now
};

// The argument vector that starts a worker; with `share`, bound to it.
std::vector<std::string> worker_command_line(const std::filesystem::path &runner,
                                             const std::filesystem::path &plugin_file,
                                             const std::optional<HostShare> &share = std::nullopt,
                                             const WorkerReadiness &readiness = {});

struct WorkerRequest {
    uint64_t size = 0;
    MeasureOptions options;
    Roofline host_roofline;  // measured once by the runner (host_peaks.hpp)
    std::optional<RunBudget> budget;  // the default sweep's (entry_measurer.hpp)
};

nlohmann::json request_to_wire(const WorkerRequest &request);
WorkerRequest request_from_wire(const nlohmann::json &wire);  // throws on a malformed request

}  // namespace gpubench
