// The pieces shared by the runner's helper processes (workers, plugin scanners): starting one
// in a process group of its own (so that a time-out kills whatever it started too), JSON lines
// over a pipe, and how it ended, in words. Its owner is gpubench/child_process.hpp's.
#pragma once

#include <gpubench/child_process.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

// Starts `words` (words[0] is the program) in `child`, the leader of a new process group. Each
// pair of `descriptors` makes the parent's first descriptor the child's second (the parent's
// stays open); the child's stdout goes to `stdout_target` (the runner's stdout is its table).
// The child gets this process's environment with each of `environment` (name, value) set.
// Throws std::runtime_error when it cannot start.
void start_child(ChildProcess &child, std::vector<std::string> words, std::vector<std::pair<int, int>> descriptors,
                 int stdout_target, std::vector<std::pair<std::string, std::string>> environment = {});

// Writes all of `text`, through interruptions; false when it cannot (the reader is gone, a full
// disk), with errno saying why.
bool write_all(int fd, const std::string &text);

// In a helper: the start every helper makes. It dies with the runner that started it, and
// leaves Ctrl-C to the runner (which stops it itself); false when the runner is already gone.
bool start_helper();

// In a helper: writes `message` as one line (invalid UTF-8 replaced), or ends the process at once (status 0) when the
// runner is gone, as nothing is left to do then.
void report_or_exit(int fd, const nlohmann::json &message);

// A helper's numeric argument (a descriptor, a device): decimal, 0 to 2^20.
bool parse_small_int(const char *text, int &out);

// "SIGSEGV (Segmentation fault)"
std::string describe_signal(int signal_number);

// Lines that arrive through a pipe, as whole lines and bounded: the one reader of the
// worker's reports, the runner's requests to a worker, and the helpers' reports (scans, work
// queries). A writer that never ends its line cannot make the reader hold more than its bound.
class PipeLines {
public:
    // `max_line_bytes`: the longest line taken; more than that without a newline is refused.
    explicit PipeLines(size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

    // Reads what `fd` has: on a non-blocking descriptor until it has no more, on a blocking one
    // a single read (which waits for something). false once the writer has closed its end (or
    // the read failed), true otherwise. Throws std::length_error, naming the bound, when the
    // line under way grows beyond it.
    bool read_from(int fd);
    // The next whole line (without its newline) that has arrived, or nullopt.
    std::optional<std::string> next_line();
    // Once the writer has closed: what followed its last newline (a last line left unended).
    std::string rest();

private:
    size_t max_line_bytes_;
    std::string pending_;
    size_t taken_ = 0;  // bytes of pending_ already handed out as lines
};

}  // namespace gpubench
