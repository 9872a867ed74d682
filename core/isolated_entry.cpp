#include "isolated_entry.hpp"

#include "worker_protocol.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

extern char **environ;

namespace gpubench {
namespace {

// "SIGSEGV (Segmentation fault)"
std::string describe_signal(int signal_number) {
    const char *abbreviation = sigabbrev_np(signal_number);
    std::string text = abbreviation ? std::string("SIG") + abbreviation
                                    : "signal " + std::to_string(signal_number);
    return text + " (" + strsignal(signal_number) + ")";
}

// What the worker said: the stage it last began, and its entry once it reported one.
struct Report {
    std::string stage = "start-up";
    std::optional<EntryResult> entry;
    std::string malformed;  // a line that did not parse, if any

    void take_line(const std::string &line) {
        if (line.empty()) return;
        try {
            nlohmann::json message = nlohmann::json::parse(line);
            if (message.contains("stage")) stage = message["stage"].get<std::string>();
            if (message.contains("entry")) entry = entry_from_wire(message["entry"]);
        } catch (const std::exception &e) {
            malformed = e.what();
        }
    }
};

class Worker {
public:
    Worker(const std::filesystem::path &runner, const std::string &request) {
        int fds[2];
        if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
        read_fd_ = fds[0];
        fcntl(read_fd_, F_SETFD, FD_CLOEXEC);  // the worker keeps only the write end
        const std::string fd_text = std::to_string(fds[1]);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        // The worker's stdout goes to stderr: the runner's stdout is its table.
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
        const std::string program = runner.string();
        std::vector<char *> argv = {const_cast<char *>(program.c_str()),
                                    const_cast<char *>("--worker"),
                                    const_cast<char *>(request.c_str()),
                                    const_cast<char *>("--worker-report-fd"),
                                    const_cast<char *>(fd_text.c_str()), nullptr};
        const int status =
            posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(fds[1]);
        if (status != 0) {
            close(read_fd_);
            throw std::runtime_error("cannot start a worker (" + program +
                                     "): " + std::strerror(status));
        }
    }
    ~Worker() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            wait_for_exit();
        }
        if (read_fd_ >= 0) close(read_fd_);
    }

    // Reads what is there within `wait_ms`; false once the worker closed its end.
    bool read_some(Report &report, int wait_ms) {
        pollfd pfd{read_fd_, POLLIN, 0};
        if (poll(&pfd, 1, wait_ms) <= 0) return true;
        char buffer[65536];
        const ssize_t got = read(read_fd_, buffer, sizeof buffer);
        if (got < 0) return errno == EINTR;
        if (got == 0) {
            report.take_line(pending_);
            pending_.clear();
            return false;
        }
        pending_.append(buffer, static_cast<size_t>(got));
        for (size_t end; (end = pending_.find('\n')) != std::string::npos;) {
            report.take_line(pending_.substr(0, end));
            pending_.erase(0, end + 1);
        }
        return true;
    }
    void kill_now() {
        if (pid_ > 0) kill(pid_, SIGKILL);
    }
    int wait_for_exit() {  // the waitpid status
        int status = 0;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
        return status;
    }

private:
    pid_t pid_ = -1;
    int read_fd_ = -1;
    std::string pending_;
};

}  // namespace

std::optional<EntryResult> measure_in_worker(const Plugin &plugin, uint64_t size,
                                             const MeasureOptions &options,
                                             const WorkerLaunch &launch) {
    EntryResult failed;  // what is recorded when the worker reports nothing
    failed.plugin = plugin.name();
    failed.size = size;
    failed.status = EntryStatus::error;
    failed.item_name = plugin.item_name();
    failed.headline = plugin.headline();
    if (std::string why = size_range_problem(plugin, size); !why.empty()) {
        failed.status = EntryStatus::skipped;  // no process needed to say so
        failed.message = why;
        return failed;
    }

    const WorkerRequest request{plugin.file().string(), plugin.name(), size, options};
    std::optional<Worker> worker;
    try {
        worker.emplace(launch.runner, request_to_wire(request).dump());
    } catch (const std::exception &e) {
        failed.message = e.what();
        return failed;
    }
    Report report;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration<double>(launch.timeout_s);
    bool timed_out = false;
    while (worker->read_some(report, 100)) {
        if (launch.interrupted && launch.interrupted()) return std::nullopt;  // ~Worker kills it
        if (launch.tick) launch.tick();
        if (std::chrono::steady_clock::now() >= deadline) {
            timed_out = true;
            worker->kill_now();
            break;
        }
    }
    const int status = worker->wait_for_exit();
    if (launch.interrupted && launch.interrupted()) return std::nullopt;

    const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (report.entry && clean_exit) return report.entry;
    if (report.entry) {  // measured, then the process ended badly (a crash in an atexit handler...)
        EntryResult entry = *report.entry;
        const std::string ending =
            WIFSIGNALED(status)
                ? "the worker crashed after reporting: " + describe_signal(WTERMSIG(status))
                : "the worker exited with status " + std::to_string(WEXITSTATUS(status)) +
                      " after reporting";
        // An error already reported (a lost CUDA context, say) is the cause: keep it first.
        entry.message = entry.status == EntryStatus::ok ? ending : entry.message + "; " + ending;
        entry.status = EntryStatus::error;
        return entry;
    }
    const std::string where = " in " + report.stage;
    if (timed_out) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", launch.timeout_s);
        failed.message = "timed out after " + std::string(seconds) + " s" + where + " (--timeout)";
    } else if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        failed.message = "crashed" + where + ": " + describe_signal(sig);
        if (sig == SIGKILL) failed.message += "; killed from outside, the kernel's out-of-memory killer?";
    } else if (!report.malformed.empty()) {
        failed.message = "the worker's report" + where + " did not parse: " + report.malformed;
    } else {
        failed.message = "the worker process exited with status " +
                         std::to_string(WEXITSTATUS(status)) + where +
                         " without reporting (did the plugin call exit()?)";
    }
    return failed;
}

}  // namespace gpubench
