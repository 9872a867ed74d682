// The worker process: the runner's own executable started as
//   runner --gpubench-worker PLUGIN_FILE CUDA_DEVICE REQUEST_FD REPORT_FD [--cpus LIST --threads N]
//          [--prepare THREADS [--trace]]
// With --cpus (a --devices lane's share of the host, host_share.hpp) it binds itself to those
// CPUs and sets the thread counts of OpenMP, OpenBLAS, MKL, Numba and NumExpr to N before the
// plugin is loaded; without, it keeps what it inherited. It loads one plugin (and, for a CUDA
// plugin, creates its CUDA context) at once; with --prepare it also runs the plugin's
// prepare() (a Python backend's interpreter and imports) for THREADS threads, and with
// --trace loads the device trace, so that a worker started ahead of need has paid for all of
// it before its first entry. Then it
// measures the entries the runner asks for, one request line at a time, until the request
// pipe closes or the CUDA context is lost. Core owns both ends: the runner's main() only
// hands over when is_worker_command_line() says so.
#pragma once

#include "host_share.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

inline constexpr const char *worker_flag = "--gpubench-worker";

bool is_worker_command_line(int argc, const char *const *argv);
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
                                             int cuda_device, int request_fd, int report_fd,
                                             const std::optional<HostShare> &share = std::nullopt,
                                             const WorkerReadiness &readiness = {});

}  // namespace gpubench
