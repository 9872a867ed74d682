// A helper process that reports JSON lines through a pipe (its descriptor 3), as the plugin
// scanner (plugin_scan.hpp) and the work query (work_query.hpp) do: started in a process
// group of its own, its lines read without blocking as they arrive, and killed with its group
// once its owner is done with it. run_helpers() keeps a few of them running at a time.
#pragma once

#include "child_process.hpp"
#include "elapsed.hpp"

#include <gpubench/child_process.hpp>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gpubench {

// Far above any honest report (a descriptor's copy, a list of declared work).
inline constexpr size_t max_report_bytes = 4 << 20;

class ReportingChild {
public:
    // Starts `words` (start_child) with the pipe as its descriptor 3 and its stdout on
    // `stdout_target`. Throws std::runtime_error when it cannot start.
    ReportingChild(std::vector<std::string> words, int stdout_target);
    ~ReportingChild();  // kills its process group and reaps it
    ReportingChild(const ReportingChild &) = delete;
    ReportingChild &operator=(const ReportingChild &) = delete;

    int fd() const { return fd_; }
    double seconds() const { return seconds_since(started_); }  // since it started
    // The whole lines that arrived since the last call. Throws std::length_error when a line
    // grows beyond max_report_bytes.
    std::vector<std::string> take_lines();
    // Its wait status once it has ended, else nullopt. Once ended it is reaped and its process
    // group killed (what it started dies with it); the lines it wrote before stay readable.
    std::optional<int> ended() { return child_.try_wait(); }

private:
    ChildProcess child_;
    int fd_ = -1;
    PipeLines lines_{max_report_bytes};
    const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// Runs `count` jobs, a few at a time: `start(i, stdout_fd)` makes job i (a unique_ptr to a Job
// with `int fd() const`, its pipe or -1, and `bool advance()`, true once done), its helper's
// stdout on stdout_fd; `finish(job)` is called once it is done, before it is dropped.
template <class Start, class Finish>
void run_helpers(size_t count, Start start, Finish finish) {
    const size_t parallel = std::clamp<size_t>(std::thread::hardware_concurrency(), 2, 8);
    // The helpers' stdout (a constructor's chatter must not reach the runner's table).
    const std::unique_ptr<std::FILE, int (*)(std::FILE *)> null(std::fopen("/dev/null", "we"), std::fclose);
    const int quiet = null ? fileno(null.get()) : STDERR_FILENO;
    std::list<decltype(start(size_t{}, 0))> running;
    for (size_t next = 0; next < count || !running.empty();) {
        while (next < count && running.size() < parallel) running.push_back(start(next++, quiet));
        std::vector<pollfd> waiting;
        for (const auto &job : running)
            if (job->fd() >= 0) waiting.push_back({job->fd(), POLLIN, 0});
        poll(waiting.data(), waiting.size(), 20);
        for (auto job = running.begin(); job != running.end();)
            if ((*job)->advance()) {
                finish(**job);
                job = running.erase(job);  // kills and reaps what is left of it
            } else {
                ++job;
            }
    }
}

}  // namespace gpubench
