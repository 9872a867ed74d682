// Finding plugins: where to look, what was found and refused, and selection by name or glob.
#pragma once

#include "plugin_info.hpp"
#include "plugin_scan.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace gpubench {

// Environment variable with extra plugin directories, separated by ':'.
inline constexpr const char *plugin_path_variable = "GPUBENCH_PLUGIN_PATH";

struct PluginCatalog {
    std::vector<PluginInfo> plugins;  // accepted, in discovery order
    std::vector<Refusal> refused;     // files (and folders) seen and not accepted
    std::vector<std::filesystem::path> not_scanned;  // skipped by name (see discover_plugins)
    ScanSettings scan;                // how they are scanned if select_plugins needs them
};

// The folders to search, and warnings about entries left out.
struct PluginSearchPath {
    std::vector<std::filesystem::path> dirs;
    std::vector<std::string> warnings;
};

// Directories searched, in order: `explicit_dirs` (--plugin-dir), then the entries of
// `environment_value` (GPUBENCH_PLUGIN_PATH, may be null), then <exe_dir>/../lib/gpubench/plugins.
// Never the current directory, unless named explicitly: a relative or empty entry of the
// variable ('.', 'lib', '::') would depend on where the runner is started, so it is left out
// with a warning.
PluginSearchPath plugin_search_path(const std::filesystem::path &exe_dir,
                                    const std::vector<std::string> &explicit_dirs,
                                    const char *environment_value);

struct PluginSearch {
    std::vector<std::filesystem::path> dirs;
    ScanSettings scan;
    bool allow_insecure = false;  // --allow-insecure-plugins: load what insecure_plugin_path refuses
};

// Scans every *.so file in each directory (not recursive, sorted by file name) out of process
// (plugin_scan.hpp). The first plugin of a name wins; later ones are refused as duplicates. A
// missing directory, an insecure folder or file (insecure_plugin_path), and every file the
// scan refuses are reported as refusals, not errors. With `patterns` (--plugin), a file whose
// name (without .so) matches none of them is not scanned but kept in not_scanned: plugins are
// named <name>.so, so start-up scans only what it will run.
PluginCatalog discover_plugins(const PluginSearch &search,
                               const std::vector<std::string> &patterns = {});

// The plugins whose names match any pattern (exact names or shell globs such as 'matmul_*'),
// in catalog order, each once. A pattern that matches no plugin scans the files left in
// not_scanned first (a plugin whose file is named otherwise). Throws std::invalid_argument
// naming a pattern that still matches none.
std::vector<const PluginInfo *> select_plugins(PluginCatalog &catalog,
                                               const std::vector<std::string> &patterns);

// A --param key (of "k=v,k2=v2") that none of `plugins` reads, as an error message naming it
// and what they read; "" when every key is read by one of them, or when some plugin does not
// declare its keys (then a key may be its own).
std::string unread_param_problem(const std::vector<const PluginInfo *> &plugins,
                                 const std::string &params);

}  // namespace gpubench
