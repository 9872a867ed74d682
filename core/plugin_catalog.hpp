// Finding plugins: where to look, what was found and refused, and selection by name or glob.
#pragma once

#include "plugin_library.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace gpubench {

// Environment variable with extra plugin directories, separated by ':'.
inline constexpr const char *plugin_path_variable = "GPUBENCH_PLUGIN_PATH";

struct PluginCatalog {
    std::vector<Plugin> plugins;    // accepted, in discovery order
    std::vector<Refusal> refused;   // files seen and not accepted
    std::vector<std::filesystem::path> not_loaded;  // skipped by name (see discover_plugins)
};

// Directories searched, in order: `explicit_dirs` (--plugin-dir), then the entries of
// `environment_value` (GPUBENCH_PLUGIN_PATH, may be null), then <exe_dir>/../lib/gpubench/plugins.
// Never the current directory, unless named explicitly.
std::vector<std::filesystem::path> plugin_search_path(
    const std::filesystem::path &exe_dir, const std::vector<std::string> &explicit_dirs,
    const char *environment_value);

// Loads every *.so file in each directory (not recursive, sorted by file name). The first
// plugin of a name wins; later ones are refused as duplicates. A missing directory is
// reported as a refusal, not an error. With `patterns` (--plugin), a file whose name
// (without .so) matches none of them is not loaded but kept in not_loaded: plugins are
// named <name>.so, so start-up loads only what it will run.
PluginCatalog discover_plugins(const std::vector<std::filesystem::path> &dirs,
                               const std::vector<std::string> &patterns = {});

// The plugins whose names match any pattern (exact names or shell globs such as 'matmul_*'),
// in catalog order, each once. A pattern that matches no loaded plugin loads the files left in
// not_loaded first (a plugin whose file is named otherwise). Throws std::invalid_argument
// naming a pattern that still matches none.
std::vector<const Plugin *> select_plugins(PluginCatalog &catalog,
                                           const std::vector<std::string> &patterns);

// A --param key (of "k=v,k2=v2") that none of `plugins` reads, as an error message naming it
// and what they read; "" when every key is read by one of them, or when some plugin does not
// declare its keys (then a key may be its own).
std::string unread_param_problem(const std::vector<const Plugin *> &plugins,
                                 const std::string &params);

// Splits "a,b,c" into its non-empty, trimmed items.
std::vector<std::string> split_list(const std::string &text, char separator = ',');

}  // namespace gpubench
