// Asking plugins for their declared work (gpubench_work) without loading them into the
// runner: as a scan does (plugin_scan.hpp), each plugin file is loaded by a helper process of
// its own (the runner re-executed with --gpubench-work), which calls work() for each size and
// reports the answers. Only work() is called: no instance, no CUDA context. A plugin that
// fails work(), crashes, hangs past the time limit or cannot be loaded leaves those sizes
// unanswered, with the reason; the other plugins are not affected.
#pragma once

#include <gpubench/plugin.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace gpubench {

inline constexpr const char *work_query_flag = "--gpubench-work";

bool is_work_query_command_line(int argc, const char *const *argv);
// The helper process: `runner --gpubench-work PLUGIN_FILE REPORT_FD PARAMS DEVICES SIZE...`.
int work_query_main(int argc, const char *const *argv);

// The work of one plugin at several sizes, with the same params and number of devices.
struct WorkQuery {
    std::filesystem::path plugin_file;
    std::string params;
    int devices = 1;  // gpubench_work.devices (ABI 1.5)
    std::vector<uint64_t> sizes;
};

// What work() declared (flops, bytes, items, host_bytes and device_bytes; finite, not negative),
// or why it is unknown.
using WorkAnswer = std::variant<Work, std::string>;

// The answers of each query, one per size, in order. Several queries run at a time, each in
// its helper, which is killed after `timeout_s` (loading to its last answer). Never throws.
std::vector<std::vector<WorkAnswer>> query_declared_work(const std::vector<WorkQuery> &queries,
                                                         const std::filesystem::path &runner,
                                                         double timeout_s);

}  // namespace gpubench
