#include "plugin_scan.hpp"

#include "child_process.hpp"
#include "descriptor_check.hpp"
#include "plugin_library.hpp"
#include "plugin_scan_cache.hpp"
#include "text_format.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <list>
#include <thread>

namespace gpubench {

namespace fs = std::filesystem;

bool is_scan_command_line(int argc, const char *const *argv) {
    return argc > 1 && std::string(argv[1]) == scan_flag;
}

int scan_main(int argc, const char *const *argv) {
    int report_fd = -1;
    if (argc != 4 || !parse_small_int(argv[3], report_fd)) {
        std::cerr << "runner " << scan_flag << ": error: expected PLUGIN_FILE REPORT_FD "
                  << "(started by the runner, not by hand)\n";
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the runner
    if (getppid() == 1) return 0;
    std::signal(SIGINT, SIG_IGN);
    std::string stage;
    const auto report = [&](const nlohmann::json &message) {
        if (!write_json_line(report_fd, message)) std::_Exit(0);  // the runner is gone
    };
    auto loaded = load_plugin(argv[2], [&](const char *name) {
        stage = name;
        report({{"stage", name}});
    });
    if (const auto *plugin = std::get_if<Plugin>(&loaded)) {
        PluginInfo info = plugin->info();
        if (info.has_availability_probe) {  // v1.4: asked here, on every scan
            stage = "asking available()";
            report({{"stage", stage}});
            char message[1024] = "";
            if (plugin->api().available(message, sizeof message) != GPUBENCH_OK) {
                message[sizeof message - 1] = '\0';
                info.unavailable_reason = printable_text(*message ? message : "available() said no");
            }
        }
        report({{"plugin", plugin_info_to_json(info)}});
    }
    else  // a library the dynamic loader refused may load in another environment: not cached
        report({{"refused", std::get<Refusal>(loaded).reason},
                {"cacheable", stage != "loading the library"}});
    std::_Exit(0);  // the library's destructors are not the scan's business
}

namespace {

constexpr size_t max_report_bytes = 4 << 20;  // far above any descriptor's copy

double seconds_since(std::chrono::steady_clock::time_point began) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

// One file being scanned by a scanner process.
class ScanJob {
public:
    ScanJob(size_t index, const fs::path &file, const ScanSettings &settings, int null_fd)
        : index(index), file(file) {
        int pipe_fds[2];
        if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
            result = Refusal{file, "cannot scan: no pipe"};
            return;
        }
        fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
        try {
            pid_ = spawn_child({settings.runner.string(), scan_flag, file.string(), "3"},
                               {{pipe_fds[1], 3}}, null_fd);  // a constructor's chatter: nowhere
        } catch (const std::exception &e) {
            result = Refusal{file, std::string("cannot scan: ") + e.what()};
            cacheable = false;
        }
        close(pipe_fds[1]);
        fd_ = pipe_fds[0];
    }
    ~ScanJob() {
        stop();
        if (fd_ >= 0) close(fd_);
    }
    ScanJob(const ScanJob &) = delete;
    ScanJob &operator=(const ScanJob &) = delete;

    const size_t index;
    const fs::path file;
    std::optional<ScanResult> result;
    bool cacheable = true;  // a time-out, or an environment's loader error, is asked again
    int fd() const { return fd_; }

    // Reads what the scanner wrote, and notes its end; true once the job has a result.
    bool advance(const ScanSettings &settings) {
        if (result) return true;
        read_available();
        if (result) return true;
        siginfo_t ended{};
        if (waitid(P_PID, pid_, &ended, WEXITED | WNOHANG | WNOWAIT) == 0 && ended.si_pid == pid_) {
            // Unreaped, it still holds its group's id: what a constructor started dies with it.
            kill(-pid_, SIGKILL);
            int status = 0;
            while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
            pid_ = -1;
            read_available();  // what it wrote just before it ended
            if (!result) refuse_after_exit(status);
            return true;
        }
        if (seconds_since(started_) > settings.timeout_s) {
            char text[64];
            std::snprintf(text, sizeof text, "%g", settings.timeout_s);
            result = Refusal{file, "still " + stage_ + " after " + text +
                                       " s (a constructor that blocks?): killed (--scan-timeout)"};
            cacheable = false;
        }
        return result.has_value();
    }

private:
    void read_available() {
        char buffer[65536];
        for (;;) {
            const ssize_t got = read(fd_, buffer, sizeof buffer);
            if (got <= 0) break;
            pending_.append(buffer, static_cast<size_t>(got));
            if (pending_.size() > max_report_bytes) {
                result = Refusal{file, "the scanner's report is larger than " +
                                           std::to_string(max_report_bytes) + " bytes"};
                return;
            }
        }
        for (size_t end; !result && (end = pending_.find('\n')) != std::string::npos;) {
            take_line(pending_.substr(0, end));
            pending_.erase(0, end + 1);
        }
    }
    void take_line(const std::string &line) {
        try {
            const nlohmann::json message = nlohmann::json::parse(line);
            if (message.contains("stage")) stage_ = message.at("stage").get<std::string>();
            if (message.contains("refused")) {
                result = Refusal{file, message.at("refused").get<std::string>()};
                cacheable = message.value("cacheable", true);
            } else if (message.contains("plugin")) {
                // What arrives on the pipe is checked again: the library's code ran there.
                PluginInfo info = plugin_info_from_json(message.at("plugin"), file);
                cacheable = !info.has_availability_probe;  // its answer depends on the machine
                const std::string problem = plugin_info_problem(info);
                result = problem.empty() ? ScanResult(std::move(info)) : Refusal{file, problem};
            }
        } catch (const std::exception &e) {
            result = Refusal{file, "the scanner's report did not parse (" + std::string(e.what()) +
                                       "): something in the library wrote to it?"};
        }
    }
    void refuse_after_exit(int status) {
        if (WIFSIGNALED(status))
            result = Refusal{file, "crashed while " + stage_ + ": " + describe_signal(WTERMSIG(status))};
        else
            result = Refusal{file, "exited with status " + std::to_string(WEXITSTATUS(status)) +
                                       " while " + stage_ + ", without a report (a constructor "
                                       "that calls exit()?)"};
    }
    void stop() {
        if (pid_ <= 0) return;
        kill(-pid_, SIGKILL);  // its process group: whatever a constructor started too
        while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
    }

    pid_t pid_ = -1;
    int fd_ = -1;
    std::string pending_;
    std::string stage_ = "starting the scanner";
    const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// Scans `todo` (indices into `files`) in scanner processes, a few at a time.
void run_scanners(const std::vector<fs::path> &files, const std::vector<size_t> &todo,
                  const ScanSettings &settings, std::vector<std::optional<ScanResult>> &results,
                  std::vector<bool> &cacheable) {
    const int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    const size_t parallel = std::clamp<size_t>(std::thread::hardware_concurrency(), 2, 8);
    std::list<ScanJob> running;
    size_t next = 0;
    while (next < todo.size() || !running.empty()) {
        while (next < todo.size() && running.size() < parallel) {
            const size_t index = todo[next++];
            running.emplace_back(index, files[index], settings, null_fd >= 0 ? null_fd : STDERR_FILENO);
        }
        std::vector<pollfd> waiting;
        for (const ScanJob &job : running) waiting.push_back({job.fd(), POLLIN, 0});
        poll(waiting.data(), waiting.size(), 20);
        for (auto job = running.begin(); job != running.end();) {
            if (job->advance(settings)) {
                results[job->index] = std::move(job->result);
                cacheable[job->index] = job->cacheable;
                job = running.erase(job);  // kills and reaps what is left of it
            } else {
                ++job;
            }
        }
    }
    if (null_fd >= 0) close(null_fd);
}

}  // namespace

std::vector<ScanResult> scan_plugin_files(const std::vector<fs::path> &files,
                                          const ScanSettings &settings) {
    ScanCache cache(settings.cache);
    std::vector<std::optional<ScanResult>> results(files.size());
    std::vector<std::optional<FileIdentity>> identities(files.size());
    std::vector<size_t> todo;
    for (size_t i = 0; i < files.size(); ++i) {
        identities[i] = file_identity(files[i]);
        if (!identities[i])
            results[i] = Refusal{files[i], "cannot read the file"};
        else if (!settings.rescan)
            results[i] = cache.find(files[i], *identities[i]);
        if (!results[i]) todo.push_back(i);
    }
    std::vector<bool> cacheable(files.size(), false);
    run_scanners(files, todo, settings, results, cacheable);
    std::vector<ScanResult> out;
    for (size_t i = 0; i < files.size(); ++i) {
        // The identity from before the scan: a file replaced meanwhile is scanned again next time.
        if (cacheable[i] && identities[i]) cache.remember(files[i], *identities[i], *results[i]);
        out.push_back(std::move(*results[i]));
    }
    cache.save();
    return out;
}

}  // namespace gpubench
