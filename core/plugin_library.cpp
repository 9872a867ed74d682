#include "plugin_library.hpp"

#include "plugin_catalog.hpp"  // split_list

#include <dlfcn.h>

#include <cctype>
#include <cstring>
#include <iterator>
#include <string>

namespace gpubench {

const char *Plugin::device_kind_name() const {
    switch (api_->device_kind) {
        case GPUBENCH_DEVICE_CPU: return "cpu";
        case GPUBENCH_DEVICE_CUDA: return "cuda";
        default: return "unknown";
    }
}

std::string Plugin::item_name() const {
    return GPUBENCH_HAS_FIELD(api_, gpubench_plugin, item_name) && api_->item_name
               ? api_->item_name
               : "";
}

gpubench_headline Plugin::headline() const {
    return GPUBENCH_HAS_FIELD(api_, gpubench_plugin, headline) ? api_->headline
                                                               : GPUBENCH_HEADLINE_AUTO;
}

decltype(gpubench_plugin::metrics) Plugin::metrics_fn() const {
    return GPUBENCH_HAS_FIELD(api_, gpubench_plugin, metrics) ? api_->metrics : nullptr;
}

bool Plugin::built_unoptimized() const {
    return api_->build_info && std::strstr(api_->build_info, "unoptimized") != nullptr;
}

std::optional<std::vector<std::string>> Plugin::param_names() const {
    if (!GPUBENCH_HAS_FIELD(api_, gpubench_plugin, param_names) || !api_->param_names)
        return std::nullopt;
    return split_list(api_->param_names);
}

namespace {

// Checks the v1 fields a runner relies on; returns the first problem or "".
std::string descriptor_problem(const gpubench_plugin &d) {
    if (d.struct_size < GPUBENCH_PLUGIN_V1_0_SIZE)
        return "descriptor too small (struct_size " + std::to_string(d.struct_size) +
               " < " + std::to_string(GPUBENCH_PLUGIN_V1_0_SIZE) + " of ABI 1.0)";
    const char *const strings[] = {d.name, d.workload, d.backend, d.description,
                                   d.size_meaning, d.version};
    const char *const string_names[] = {"name", "workload", "backend", "description",
                                        "size_meaning", "version"};
    for (size_t i = 0; i < std::size(strings); ++i)
        if (!strings[i] || !*strings[i])
            return std::string("descriptor field '") + string_names[i] + "' is empty";
    if (!d.work || !d.create || !d.run || !d.verify || !d.destroy)
        return "descriptor lacks a required function (work, create, run, verify, destroy)";
    if (d.device_kind != GPUBENCH_DEVICE_CPU && d.device_kind != GPUBENCH_DEVICE_CUDA)
        return "unknown device kind " + std::to_string(d.device_kind);
    if (d.min_size < 1 || d.min_size > d.max_size)
        return "invalid size range " + std::to_string(d.min_size) + ".." +
               std::to_string(d.max_size);
    if (d.default_size_count && !d.default_sizes)
        return "default_size_count is set but default_sizes is NULL";
    for (const char *c = d.name; *c; ++c)
        if (!(std::isalnum(static_cast<unsigned char>(*c)) || *c == '_' || *c == '-'))
            return std::string("plugin name '") + d.name + "' has characters other than "
                   "letters, digits, '_' and '-'";
    return "";
}

}  // namespace

std::variant<Plugin, Refusal> load_plugin(const std::filesystem::path &file) {
    namespace dll = boost::dll;
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
        return Refusal{file, std::string("cannot load: ") + (why ? why : ec.message())};
    }
    if (!library.has(GPUBENCH_ENTRY_SYMBOL))
        return Refusal{file, "no entry symbol '" GPUBENCH_ENTRY_SYMBOL "' (not a gpubench plugin)"};
    auto entry = library.get<const gpubench_plugin *()>(GPUBENCH_ENTRY_SYMBOL);
    const gpubench_plugin *api = entry();
    if (!api) return Refusal{file, "entry symbol returned NULL"};
    // struct_size and abi_major/minor are laid out identically in every ABI version.
    if (api->abi_major != GPUBENCH_ABI_MAJOR)
        return Refusal{file, "ABI " + std::to_string(api->abi_major) + "." +
                                 std::to_string(api->abi_minor) + " is incompatible with this "
                                 "runner's ABI " + std::to_string(GPUBENCH_ABI_MAJOR) + "." +
                                 std::to_string(GPUBENCH_ABI_MINOR) +
                                 " (major versions differ): rebuild it against this SDK"};
    std::string problem = descriptor_problem(*api);
    if (!problem.empty()) return Refusal{file, problem};
    return Plugin(std::move(library), api, file);
}

}  // namespace gpubench
