// GPUBENCH_PLUGIN(Class, info): the descriptor of a plugin class (its Info and the adapter's
// functions, gpubench/adapter.hpp) and the library's single entry symbol that returns it.
#pragma once

#include <gpubench/adapter.hpp>
#include <gpubench/descriptor.hpp>
#include <gpubench/plugin.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::detail {

// The C form of Info::params, which the descriptor points into: it lives as long as the
// descriptor (a static beside it), and so must the Info it was made from.
class DeclaredParams {
public:
    explicit DeclaredParams(const Info &info) {
        for (const ParamSpec &p : info.params) {
            std::string joined;
            for (const std::string &c : p.choices) joined += (joined.empty() ? "" : ",") + c;
            choices_.push_back(std::move(joined));
            keys_ += (keys_.empty() ? "" : ",") + p.key;
        }
        for (size_t i = 0; i < info.params.size(); ++i) {
            const ParamSpec &p = info.params[i];
            params_.push_back({sizeof(gpubench_param), p.key.c_str(), p.kind, p.default_value.c_str(),
                               p.kind == GPUBENCH_PARAM_CHOICE ? choices_[i].c_str() : nullptr, p.min, p.max,
                               p.help.c_str()});
        }
    }
    const std::vector<gpubench_param> &params() const { return params_; }
    const char *keys() const { return keys_.c_str(); }

private:
    std::vector<std::string> choices_;
    std::string keys_;
    std::vector<gpubench_param> params_;
};

template <class T>
gpubench_plugin make_descriptor(const Info &info, const char *build_info,
                                const DeclaredParams *declared = nullptr) {
    gpubench_plugin d{};
    d.struct_size = sizeof(gpubench_plugin);
    d.abi_major = GPUBENCH_ABI_MAJOR;
    d.abi_minor = GPUBENCH_ABI_MINOR;
    d.name = info.name;
    d.workload = info.workload;
    d.backend = info.backend;
    d.device_kind = info.device_kind;
    d.description = info.description;
    d.size_meaning = info.size_meaning;
    d.version = info.version;
    d.build_info = build_info;
    d.params_help = info.params_help ? info.params_help : "";
    d.min_size = info.min_size;
    d.max_size = info.max_size;
    d.default_sizes = info.default_sizes.data();
    d.default_size_count = static_cast<uint32_t>(info.default_sizes.size());
    d.work = &Adapter<T>::work;
    d.create = &Adapter<T>::create;
    d.upload = has_upload<T>::value ? &Adapter<T>::upload : nullptr;
    d.reset = has_reset<T>::value ? &Adapter<T>::reset : nullptr;
    d.run = &Adapter<T>::run;
    d.download = has_download<T>::value ? &Adapter<T>::download : nullptr;
    d.verify = &Adapter<T>::verify;
    d.destroy = &Adapter<T>::destroy;
    d.item_name = info.item_name;
    d.headline = info.headline;
    d.metrics = has_metrics<T>::value ? &Adapter<T>::metrics : nullptr;
    d.param_names = info.param_names;
    d.max_devices = info.max_devices;
    if (declared && !declared->params().empty()) {
        d.params = declared->params().data();
        d.param_count = static_cast<uint32_t>(declared->params().size());
        if (!d.param_names) d.param_names = declared->keys();
    }
    return d;
}

}  // namespace gpubench::detail

// Provenance: gpubench_add_plugin() defines GPUBENCH_PLUGIN_BUILD_INFO (compiler, build type,
// flags, architectures, then whether this file was optimised: see plugin.h).
#ifndef GPUBENCH_PLUGIN_BUILD_INFO
#define GPUBENCH_PLUGIN_BUILD_INFO "unknown build, " GPUBENCH_OPTIMIZATION_TEXT
#endif

// Defines the plugin's single entry symbol. `...` is an expression of type gpubench::Info.
#define GPUBENCH_PLUGIN(Class, ...)                                                       \
    extern "C" GPUBENCH_EXPORT const gpubench_plugin *gpubench_plugin_entry(void) {       \
        try {                                                                             \
            static const ::gpubench::Info gpubench_info_ = __VA_ARGS__;                   \
            static const ::gpubench::detail::DeclaredParams gpubench_params_(gpubench_info_); \
            static const gpubench_plugin gpubench_descriptor_ =                           \
                ::gpubench::detail::make_descriptor<Class>(                               \
                    gpubench_info_, GPUBENCH_PLUGIN_BUILD_INFO, &gpubench_params_);       \
            return &gpubench_descriptor_;                                                 \
        } catch (...) {                                                                   \
            return nullptr; /* the runner refuses a plugin whose entry returns NULL */    \
        }                                                                                 \
    }
