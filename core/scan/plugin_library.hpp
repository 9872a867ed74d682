// Loading one plugin file into this process: done by workers (and under --in-process) for a
// file the runner has scanned (plugin_scan.hpp). The descriptor is read and checked again
// (descriptor_check.hpp): the file may have changed since.
#pragma once

#include "plugin_info.hpp"

#include <gpubench/plugin.h>

#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <functional>
#include <variant>

namespace gpubench {

// A loaded plugin whose descriptor passed the checks. The library stays loaded, and the
// descriptor valid, for as long as this object lives.
class Plugin {
public:
    Plugin(boost::dll::shared_library library, const gpubench_plugin *api, PluginInfo info)
        : library_(std::move(library)), api_(api), info_(std::move(info)) {}

    const gpubench_plugin &api() const { return *api_; }
    const PluginInfo &info() const { return info_; }
    const std::string &name() const { return info_.name; }
    bool is_cuda() const { return info_.is_cuda(); }
    // v1.1's optional metrics(); nullptr when the plugin has none or is older.
    decltype(gpubench_plugin::metrics) metrics_fn() const;
    // v1.4's optional prepare(); nullptr when the plugin has none or is older.
    decltype(gpubench_plugin::prepare) prepare_fn() const;

private:
    boost::dll::shared_library library_;
    const gpubench_plugin *api_;
    PluginInfo info_;
};

// Loads `file` and checks its descriptor. Only the entry symbol is called; a plugin of
// another ABI major, or with a malformed descriptor, is refused without calling anything else.
// `stage` (optional) is told as each step begins: "loading the library" (its constructors
// run), "finding the entry symbol", "calling the entry symbol", "reading the descriptor".
std::variant<Plugin, Refusal> load_plugin(const std::filesystem::path &file,
                                          const std::function<void(const char *)> &stage = [](const char *) {});

}  // namespace gpubench
