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
};

// Directories searched, in order: `explicit_dirs` (--plugin-dir), then the entries of
// `environment_value` (GPUBENCH_PLUGIN_PATH, may be null), then <exe_dir>/../lib/gpubench/plugins.
// Never the current directory, unless named explicitly.
std::vector<std::filesystem::path> plugin_search_path(
    const std::filesystem::path &exe_dir, const std::vector<std::string> &explicit_dirs,
    const char *environment_value);

// Loads every *.so file in each directory (not recursive, sorted by file name). The first
// plugin of a name wins; later ones are refused as duplicates. A missing directory is
// reported as a refusal, not an error.
PluginCatalog discover_plugins(const std::vector<std::filesystem::path> &dirs);

// The plugins whose names match any pattern (exact names or shell globs such as 'matmul_*'),
// in catalog order, each once. Throws std::invalid_argument naming a pattern that matches none.
std::vector<const Plugin *> select_plugins(const PluginCatalog &catalog,
                                           const std::vector<std::string> &patterns);

// A --param key (of "k=v,k2=v2") that none of `plugins` reads, as an error message naming it
// and what they read; "" when every key is read by one of them, or when some plugin does not
// declare its keys (then a key may be its own).
std::string unread_param_problem(const std::vector<const Plugin *> &plugins,
                                 const std::string &params);

// Splits "a,b,c" into its non-empty, trimmed items.
std::vector<std::string> split_list(const std::string &text, char separator = ',');

}  // namespace gpubench
