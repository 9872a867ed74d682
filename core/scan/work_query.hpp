// Asking plugins for their declared work (gpubench_work) without loading them into the
// runner: as a scan does (plugin_scan.hpp), each file is loaded by a helper process of its own
// (runner --gpubench-work) that calls only work() (no instance, no CUDA context) for each size.
// A plugin that fails, crashes, hangs or does not load leaves its sizes unanswered, with why.
#pragma once

#include <gpubench/plugin.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace gpubench {

inline constexpr const char *work_query_flag = "--gpubench-work";

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
