// The pieces shared by the runner's helper processes (workers, plugin scanners): starting one
// in a process group of its own (so that a time-out kills whatever it started too), JSON lines
// over a pipe, and how it ended, in words. Its owner is gpubench/child_process.hpp's.
#pragma once

#include <gpubench/child_process.hpp>

#include <nlohmann/json.hpp>

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

}  // namespace gpubench
