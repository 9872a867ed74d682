// Loading one plugin file and validating its descriptor before anything else is called.
#pragma once

#include <gpubench/plugin.h>

#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gpubench {

// A loaded plugin whose descriptor passed validation. The library stays loaded, and the
// descriptor valid, for as long as this object lives.
class Plugin {
public:
    Plugin(boost::dll::shared_library library, const gpubench_plugin *api,
           std::filesystem::path file)
        : library_(std::move(library)), api_(api), file_(std::move(file)) {}

    const gpubench_plugin &api() const { return *api_; }
    const std::filesystem::path &file() const { return file_; }
    std::string name() const { return api_->name; }
    bool is_cuda() const { return api_->device_kind == GPUBENCH_DEVICE_CUDA; }
    const char *device_kind_name() const;

    // v1.1 fields, with their v1.0 meaning when an older plugin lacks them.
    std::string item_name() const;              // "" = none
    gpubench_headline headline() const;         // GPUBENCH_HEADLINE_AUTO when absent
    decltype(gpubench_plugin::metrics) metrics_fn() const;  // nullptr = none
    // build_info says the plugin was compiled without optimisation (GPUBENCH_OPTIMIZATION_TEXT).
    bool built_unoptimized() const;
    // v1.2: the parameter keys the plugin reads; nullopt when it does not say.
    std::optional<std::vector<std::string>> param_names() const;

private:
    boost::dll::shared_library library_;
    const gpubench_plugin *api_;
    std::filesystem::path file_;
};

// A file that was not accepted as a plugin, and why.
struct Refusal {
    std::filesystem::path file;
    std::string reason;
};

// Loads `file` and validates its descriptor. Only the entry symbol is called; a plugin of
// another ABI major, or with a malformed descriptor, is refused without calling anything else.
std::variant<Plugin, Refusal> load_plugin(const std::filesystem::path &file);

}  // namespace gpubench
