// Running a worker under NVIDIA's compute-sanitizer (runner --sanitize TOOL): finding the
// tool, the command line that starts a program under it, and reading the report it writes.
// The formats parsed here are those of compute-sanitizer 2025.3 (CUDA 13.0).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

enum class SanitizerTool { memcheck, racecheck, initcheck, synccheck };

// "memcheck" ... "synccheck"; nullopt for any other name.
std::optional<SanitizerTool> sanitizer_tool_from_string(const std::string &name);
const char *to_string(SanitizerTool tool);

// Where compute-sanitizer is: the folders of $PATH first, then `toolkit_bin_dir` (the CUDA
// toolkit's bin folder the build knew; may be empty), then /usr/local/cuda/bin. nullopt if
// none holds an executable regular file of that name.
std::optional<std::filesystem::path> find_compute_sanitizer(const std::string &toolkit_bin_dir);

// The argument vector that starts `program_and_args` under `sanitizer` with `tool`, its
// report going to `log_file` only; inherited file descriptors reach the program. Seen with
// 2025.3: the tool exits with the program's status once the program has made a CUDA call (0
// if it exited before any), and the program runs in the tool's process group, under a helper
// process: killing the tool's pid alone leaves the program running, killing the group does not.
std::vector<std::string> sanitizer_command(const std::filesystem::path &sanitizer, SanitizerTool tool,
                                           const std::filesystem::path &log_file,
                                           const std::vector<std::string> &program_and_args);

struct SanitizerReport {
    SanitizerTool tool = SanitizerTool::memcheck;
    bool summary_found = false;  // else the process died early or the tool failed to start
    uint64_t errors = 0;         // "ERROR SUMMARY: N errors"; racecheck's: its errors, not warnings
    // Up to 3, one line each, e.g. "Invalid __global__ write of size 4 bytes at write_to(int *)+0x60
    // in probe.cu:6".
    std::vector<std::string> first_errors;
    std::string tool_problem;  // the tool itself failed, one line; "" otherwise
    std::string note;          // the tool's first other remark ("Target application terminated...")
    std::string one_line() const;
};

SanitizerReport parse_sanitizer_log(const std::string &log_text, SanitizerTool tool);

}  // namespace gpubench
