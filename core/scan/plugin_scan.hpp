// Scanning plugin files out of process, the way audio hosts scan plugins: the runner never
// loads a file into its own process to learn what it is. Each file is loaded by a scanner
// process of its own (the runner re-executed with --gpubench-scan), which checks the
// descriptor (descriptor_check.hpp) and reports a copy of it. A file that crashes, exits, hangs
// or lies is refused with the reason and the stage it reached, the others unaffected. Results
// are cached (plugin_scan_cache.hpp): a start with nothing new costs a stat() per file.
#pragma once

#include "plugin_info.hpp"

#include <filesystem>
#include <optional>
#include <variant>
#include <vector>

namespace gpubench {

inline constexpr const char *scan_flag = "--gpubench-scan";

// The scanner process: `runner --gpubench-scan PLUGIN_FILE REPORT_FD`.
int scan_main(int argc, const char *const *argv);

struct ScanSettings {
    std::filesystem::path runner;  // the executable started as the scanner
    double timeout_s = 10;         // for one file, loading to report (--scan-timeout)
    std::optional<std::filesystem::path> cache;  // the scan cache; nullopt: none
    bool rescan = false;           // ignore what the cache holds (--rescan-plugins)
};

using ScanResult = std::variant<PluginInfo, Refusal>;

// Scans `files` (several at a time, each in a process of its own) and returns, in the same
// order, the descriptor or the refusal of each. Uses and updates the cache.
std::vector<ScanResult> scan_plugin_files(const std::vector<std::filesystem::path> &files,
                                          const ScanSettings &settings);

}  // namespace gpubench
