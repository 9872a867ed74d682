#include "worker_pool.hpp"

#include "child_process.hpp"
#include "elapsed.hpp"
#include "file_text.hpp"
#include "text_format.hpp"
#include "visible_devices.hpp"
#include "worker_main.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {
namespace {

// What the worker said about the entry under way: the stage it last began, and the entry.
struct WorkerMessages {
    std::string stage = "start-up";
    std::optional<Measurement> entry;
    std::string malformed;  // a line that did not parse, if any
    std::string oversized;  // why the worker was stopped mid-line, if it was

    void take_line(const std::string &line) {
        if (line.empty()) return;
        try {
            nlohmann::json message = parse_bounded(line, "its line");
            if (message.contains("stage")) stage = message["stage"].get<std::string>();
            if (message.contains("entry")) entry = message["entry"].get<Measurement>();
        } catch (const std::exception &e) {
            malformed = e.what();
        }
    }
};

}  // namespace

// One worker process and its two pipes: requests in, reports out.
class WorkerProcess {
public:
    // `options`: those of the entries it will measure (their threads and device trace, which
    // it readies before the first: WorkerReadiness).
    WorkerProcess(const WorkerLaunch &launch, const PluginInfo &plugin, WorkerDevices devices,
                  const MeasureOptions &options)
        : file_(plugin.file), share_(launch.host_share), devices_(std::move(devices)),
          reports_(launch.max_report_line_bytes) {
        int requests[2], reports[2];
        if (pipe2(requests, O_CLOEXEC) != 0 || pipe2(reports, O_CLOEXEC) != 0)
            throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
        request_fd_ = requests[1];
        report_fd_ = reports[0];
        std::vector<std::string> words =
            worker_command_line(launch.runner, file_, share_,
                                {std::max(1, options.cpu_threads), options.audit_streams && options.trace_device});
        if (launch.sanitizer) {
            sanitizer_log_ = std::filesystem::temp_directory_path() /
                             format_text("gpubench-sanitizer-%d-%d.log", getpid(), ++spawned_);
            words = sanitizer_command(launch.sanitizer_program, *launch.sanitizer, sanitizer_log_, words);
        }
        // The worker's ends at fixed numbers, inherited (not close-on-exec).
        try {
            start_child(child_, std::move(words), {{requests[0], worker_request_fd}, {reports[1], worker_report_fd}},
                        STDERR_FILENO, {{visible_devices_variable, devices_.visible}});
        } catch (const std::exception &e) {
            for (int fd : {requests[0], requests[1], reports[0], reports[1]}) close(fd);
            throw std::runtime_error(std::string("cannot start a worker: ") + e.what());
        }
        close(requests[0]);
        close(reports[1]);
    }
    ~WorkerProcess() {
        child_.kill();
        child_.wait();
        if (request_fd_ >= 0) close(request_fd_);
        if (report_fd_ >= 0) close(report_fd_);
        if (!sanitizer_log_.empty()) std::filesystem::remove(sanitizer_log_);
    }
    // Whether it is the worker for `plugin` on `devices`, bound to `share`.
    bool fits(const PluginInfo &plugin, const WorkerDevices &devices,
              const std::optional<HostShare> &share) const {
        return file_ == plugin.file && share_ == share && devices_.runner_indices == devices.runner_indices;
    }
    const std::filesystem::path &sanitizer_log() const { return sanitizer_log_; }
    size_t served = 0;  // entries it took: the first one paid for its start

    bool send(const std::string &line) { return write_all(request_fd_, line + '\n'); }
    // Reads what is there within `wait_ms`; false once the worker closed its end.
    bool read_some(WorkerMessages &report, int wait_ms) {
        pollfd pfd{report_fd_, POLLIN, 0};
        if (poll(&pfd, 1, wait_ms) <= 0) return true;
        bool open = true;
        try {
            open = reports_.read_from(report_fd_);  // one read: the pipe blocks
        } catch (const std::length_error &e) {
            report.oversized = std::string("the worker wrote ") + e.what() + " (the most a report may be)";
            child_.kill();
            return false;
        }
        while (const std::optional<std::string> line = reports_.next_line()) {
            report.take_line(*line);
            if (report.entry) return true;  // the rest belongs to no request
        }
        if (!open) report.take_line(reports_.rest());
        return open;
    }
    // The process itself (its group: helpers it started too): killed, waited for, reaped.
    ChildProcess &process() { return child_; }
    // Closes the request pipe, so the worker ends on its own; waits up to `grace_s`, then
    // kills it. Returns the wait status.
    int finish(double grace_s) {
        if (request_fd_ >= 0) close(request_fd_);
        request_fd_ = -1;
        if (const std::optional<int> status = child_.wait_for(grace_s)) return *status;
        child_.kill();
        return child_.wait();
    }

private:
    std::filesystem::path file_;
    std::optional<HostShare> share_;  // what it is bound to
    WorkerDevices devices_;           // what it is shown
    ChildProcess child_;
    int request_fd_ = -1, report_fd_ = -1;
    PipeLines reports_;
    std::filesystem::path sanitizer_log_;
    static inline int spawned_ = 0;
};

MeasureOptions WorkerDevices::for_worker(MeasureOptions options) const {
    options.cuda_device = 0;
    options.cuda_devices.assign(runner_indices.size() > 1 ? runner_indices.size() : 0, 0);
    std::iota(options.cuda_devices.begin(), options.cuda_devices.end(), 0);
    return options;
}

void WorkerDevices::for_runner(Measurement &entry) const {
    for (int &index : entry.cuda_devices)
        if (index >= 0 && static_cast<size_t>(index) < runner_indices.size()) index = runner_indices[index];
}

WorkerPool::WorkerPool(WorkerLaunch launch) : launch_(std::move(launch)) {
    // A worker that ended between two entries must not kill the runner when it is written to.
    signal(SIGPIPE, SIG_IGN);
}

WorkerPool::~WorkerPool() {
    // The runner is done: a healthy worker has nothing left to say, and waiting for it to tear
    // down its CUDA context would only delay the runner's exit. (Under --sanitize every worker
    // was already waited for, to read its report.)
    if (worker_) worker_->process().abandon();
}

WorkerDevices WorkerPool::devices_for(const PluginInfo &plugin, const MeasureOptions &options) const {
    std::vector<int> indices = entry_cuda_devices(plugin, options);
    std::string visible =
        worker_visible_devices(indices, launch_.gpus, launch_.inherited_visible, launch_.listed_gpus);
    return {std::move(indices), std::move(visible)};
}

void WorkerPool::prestart(const PluginInfo &plugin, const MeasureOptions &options) {
    if (worker_ || launch_.sanitizer) return;  // a sanitized worker starts with its entry
    try {
        worker_ = std::make_unique<WorkerProcess>(launch_, plugin, devices_for(plugin, options), options);
    } catch (const std::exception &) {
        // measure() tries again and records why it cannot.
    }
}

namespace {

// After the worker reported `entry`: a worker is kept only while everything goes well, and
// under --sanitize never (its report is written at exit). One that goes adds the
// sanitizer's verdict, and how it ended when that was not cleanly.
void settle_worker(EntryResult &entry, bool open, const WorkerLaunch &launch,
                   std::unique_ptr<WorkerProcess> &worker) {
    if (entry.status != EntryStatus::error && entry.status != EntryStatus::verification_failed &&
        open && !launch.sanitizer && !launch.worker_per_entry)
        return;
    const std::filesystem::path log = worker->sanitizer_log();
    const int status = worker->finish(launch.sanitizer ? 60.0 : 2.0);
    if (launch.sanitizer) {
        std::ifstream in(log);
        const SanitizerReport sanitized =
            parse_sanitizer_log(std::string(std::istreambuf_iterator<char>(in), {}), *launch.sanitizer);
        entry.sanitizer = sanitized.one_line();
        if (sanitized.errors > 0 && entry.status != EntryStatus::skipped) {
            entry.status = EntryStatus::error;
            entry.message += (entry.message.empty() ? "" : "; ") + sanitized.one_line();
        }
    }
    if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) {
        const std::string ending =
            WIFSIGNALED(status)
                ? "the worker crashed after reporting: " + describe_signal(WTERMSIG(status))
                : "the worker exited with status " + std::to_string(WEXITSTATUS(status)) +
                      " after reporting";
        // An error already reported (a lost CUDA context, say) is the cause: keep it first.
        entry.message = entry.status == EntryStatus::ok ? ending : entry.message + "; " + ending;
        entry.status = EntryStatus::error;
    }
    worker.reset();
}

// Why a worker that ended with `status` reported no entry.
std::string unreported(const WorkerMessages &report, int status, bool timed_out, double timeout_s) {
    const std::string where = " in " + report.stage;
    if (!report.oversized.empty()) return report.oversized + where;  // it was killed for it
    if (timed_out) return "timed out after " + format_text("%g", timeout_s) + " s" + where + " (--timeout)";
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        std::string message = "crashed" + where + ": " + describe_signal(sig);
        if (sig == SIGKILL) message += "; killed from outside, the kernel's out-of-memory killer?";
        return message;
    }
    if (!report.malformed.empty())
        return "the worker's report" + where + " did not parse: " + report.malformed;
    return "the worker process exited with status " + std::to_string(WEXITSTATUS(status)) + where +
           " without reporting (did the plugin call exit()?)";
}

}  // namespace

std::optional<size_t> WorkerPool::hand_over(const PluginInfo &plugin, const WorkerDevices &devices,
                                            const MeasureOptions &options, const std::string &request,
                                            std::string &why_not) {
    // A worker kept from the previous entry may have ended since: then start a fresh one.
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (!worker_) {
            try {
                worker_ = std::make_unique<WorkerProcess>(launch_, plugin, devices, options);
            } catch (const std::exception &e) {
                why_not = e.what();
                return std::nullopt;
            }
        }
        if (worker_->send(request)) return worker_->served++;
        worker_.reset();
    }
    why_not = "the worker process ended before it took the request";
    return std::nullopt;
}

std::optional<EntryResult> WorkerPool::measure(const PluginInfo &plugin, uint64_t size,
                                               const MeasureOptions &options,
                                               const std::optional<RunBudget> &budget) {
    const auto began = std::chrono::steady_clock::now();
    EntryResult failed(skipped_entry(plugin, size, ""));  // when the worker reports nothing
    failed.status = EntryStatus::error;
    const WorkerDevices devices = devices_for(plugin, options);
    if (worker_ && !worker_->fits(plugin, devices, launch_.host_share)) {
        worker_->finish(2.0);  // lets it exit (its request pipe closed) and reaps it
        worker_.reset();
    }
    const std::string request =
        request_to_wire({size, devices.for_worker(options), launch_.host_roofline, budget}).dump();
    const std::optional<size_t> entries_before = hand_over(plugin, devices, options, request, failed.message);
    if (!entries_before) return failed;
    const bool started = *entries_before == 0;

    WorkerMessages report;
    const auto deadline = began + std::chrono::duration<double>(launch_.timeout_s);
    bool timed_out = false, open = true;
    while (!report.entry && (open = worker_->read_some(report, 100))) {
        if (launch_.interrupted && launch_.interrupted()) {
            worker_.reset();  // kills it
            return std::nullopt;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            timed_out = true;
            worker_->process().kill();
            break;
        }
    }
    if (report.entry) {
        EntryResult entry(std::move(*report.entry));
        devices.for_runner(entry);
        entry.sweep.worker_started = started;
        entry.sweep.worker_entries_before = *entries_before;
        settle_worker(entry, open, launch_, worker_);
        entry.sweep.entry_wall_s = seconds_since(began);
        return entry;
    }
    const int status = worker_->process().wait();
    worker_.reset();
    if (launch_.interrupted && launch_.interrupted()) return std::nullopt;
    failed.sweep.worker_started = started;
    failed.message = unreported(report, status, timed_out, launch_.timeout_s);
    failed.sweep.entry_wall_s = seconds_since(began);
    return failed;
}

}  // namespace gpubench
