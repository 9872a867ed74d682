// GPUBENCH_PLUGIN(Class, info): the descriptor of a plugin class (its Info and the adapter's
// functions, gpubench/adapter.hpp) and the library's single entry symbol that returns it.
#pragma once

#include <gpubench/adapter.hpp>
#include <gpubench/descriptor.hpp>
#include <gpubench/plugin.h>

#include <cstdint>

namespace gpubench::detail {

template <class T>
gpubench_plugin make_descriptor(const Info &info, const char *build_info) {
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
            static const gpubench_plugin gpubench_descriptor_ =                           \
                ::gpubench::detail::make_descriptor<Class>(gpubench_info_,                \
                                                           GPUBENCH_PLUGIN_BUILD_INFO);   \
            return &gpubench_descriptor_;                                                 \
        } catch (...) {                                                                   \
            return nullptr; /* the runner refuses a plugin whose entry returns NULL */    \
        }                                                                                 \
    }
