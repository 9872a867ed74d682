#include "plugin_library.hpp"

#include "descriptor_check.hpp"

#include <dlfcn.h>

#include <string>

namespace gpubench {

decltype(gpubench_plugin::metrics) Plugin::metrics_fn() const {
    return GPUBENCH_HAS_FIELD(api_, gpubench_plugin, metrics) ? api_->metrics : nullptr;
}

decltype(gpubench_plugin::prepare) Plugin::prepare_fn() const {
    return GPUBENCH_HAS_FIELD(api_, gpubench_plugin, prepare) ? api_->prepare : nullptr;
}

std::variant<Plugin, Refusal> load_plugin(const std::filesystem::path &file,
                                          const std::function<void(const char *)> &stage) {
    namespace dll = boost::dll;
    stage("loading the library");
    std::error_code ec;
    ::dlerror();  // clear, so a failure below reports its own cause
    // rtld_now: unresolved symbols are found now and refused, not at the first call.
    // RTLD_NODELETE: a plugin is never unmapped, because threads it started (an OpenMP pool,
    // a CUDA library's helpers) can outlive the handle and would crash in unmapped code.
    const auto mode = dll::load_mode::rtld_now | dll::load_mode::rtld_local |
                      static_cast<dll::load_mode::type>(RTLD_NODELETE);
    dll::shared_library library(file, ec, mode);
    if (ec || !library.is_loaded()) {
        const char *why = ::dlerror();
        return Refusal{file, "cannot load: " + std::string(why ? why : ec.message())};
    }
    stage("finding the entry symbol");
    if (!library.has(GPUBENCH_ENTRY_SYMBOL))
        return Refusal{file, "no entry symbol '" GPUBENCH_ENTRY_SYMBOL "' (not a gpubench plugin)"};
    auto entry = library.get<const gpubench_plugin *()>(GPUBENCH_ENTRY_SYMBOL);
    stage("calling the entry symbol");
    const gpubench_plugin *api = entry();
    stage("reading the descriptor");
    auto checked = read_descriptor(api, ProcessAddressSpace());
    if (auto *problem = std::get_if<std::string>(&checked)) return Refusal{file, *problem};
    PluginInfo info = std::move(std::get<PluginInfo>(checked));
    info.file = file;
    return Plugin(std::move(library), api, std::move(info));
}

}  // namespace gpubench
