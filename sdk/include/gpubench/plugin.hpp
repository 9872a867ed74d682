// Optional C++ helper over the C ABI in plugin.h: write a class, add one macro.
//
//   class MyBench {
//    public:
//     explicit MyBench(const gpubench::Setup &setup);     // create: allocate, make inputs
//     static gpubench::Work work(uint64_t size, const gpubench::Params &params);
//     // or, across several GPUs (Info::max_devices > 1), with the number it will be given:
//     // static gpubench::Work work(uint64_t size, const gpubench::Params &, int devices);
//     void upload();                                      // optional (CUDA plugins)
//     void reset();                                       // optional (in-place runs)
//     void run();
//     void download();                                    // optional (CUDA plugins)
//     gpubench::Verification verify();
//     std::vector<gpubench::Metric> metrics();            // optional (accuracy, loss...)
//   };
//   GPUBENCH_PLUGIN(MyBench, gpubench::Info{ ... })
//
// Methods that are absent become NULL in the descriptor. Any exception is caught at the
// boundary: gpubench::Error carries its own status, std::bad_alloc becomes OUT_OF_MEMORY,
// everything else ERROR with what() as the message.
#pragma once

#include <gpubench/plugin.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpubench {

// An exception that knows which status it becomes at the boundary.
class Error : public std::runtime_error {
public:
    Error(gpubench_status status, const std::string &message)
        : std::runtime_error(message), status_(status) {}
    gpubench_status status() const noexcept { return status_; }

private:
    gpubench_status status_;
};

struct OutOfMemory : Error {
    explicit OutOfMemory(const std::string &m) : Error(GPUBENCH_OUT_OF_MEMORY, m) {}
};
struct NotSupported : Error {
    explicit NotSupported(const std::string &m) : Error(GPUBENCH_NOT_SUPPORTED, m) {}
};
struct InvalidArgument : Error {
    explicit InvalidArgument(const std::string &m) : Error(GPUBENCH_INVALID_ARGUMENT, m) {}
};

// "key=value,key=value" as passed by the runner's --param options.
class Params {
public:
    Params() = default;
    explicit Params(const char *text) : text_(text ? text : "") {
        const std::string &all = text_;
        size_t start = 0;
        while (start <= all.size()) {
            size_t end = all.find(',', start);
            if (end == std::string::npos) end = all.size();
            std::string item = all.substr(start, end - start);
            if (!item.empty()) {
                size_t eq = item.find('=');
                if (eq == std::string::npos || eq == 0)
                    throw InvalidArgument("parameter '" + item + "' is not key=value");
                values_[item.substr(0, eq)] = item.substr(eq + 1);
            }
            start = end + 1;
        }
    }
    bool has(const std::string &key) const { return values_.count(key) != 0; }
    std::string get(const std::string &key, const std::string &fallback) const {
        auto it = values_.find(key);
        return it == values_.end() ? fallback : it->second;
    }
    double get_double(const std::string &key, double fallback) const {
        auto it = values_.find(key);
        if (it == values_.end()) return fallback;
        char *end = nullptr;
        double v = std::strtod(it->second.c_str(), &end);
        if (end == it->second.c_str() || *end != '\0')
            throw InvalidArgument("parameter " + key + "='" + it->second + "' is not a number");
        return v;
    }
    long long get_int(const std::string &key, long long fallback) const {
        auto it = values_.find(key);
        if (it == values_.end()) return fallback;
        char *end = nullptr;
        long long v = std::strtoll(it->second.c_str(), &end, 10);
        if (end == it->second.c_str() || *end != '\0')
            throw InvalidArgument("parameter " + key + "='" + it->second +
                                  "' is not a whole number");
        return v;
    }

    // As the runner passed it ("key=value,key=value"), for code that hands it on.
    const std::string &text() const { return text_; }

private:
    std::string text_;
    std::map<std::string, std::string> values_;
};

// create()'s arguments in C++ form.
struct Setup {
    uint64_t size = 0;
    uint64_t seed = 0;
    int cpu_threads = 1;
    int cuda_device = 0;
    void *cuda_stream = nullptr;  // a cudaStream_t; see gpubench/cuda.hpp for a typed accessor
    Params params;
    // ABI 1.5: every device the plugin works on and the stream of each (element 0 is
    // cuda_device and cuda_stream); one device unless Info::max_devices is above 1. Filled
    // from the single device and stream when the runner is older; empty for CPU plugins.
    std::vector<int> cuda_devices;
    std::vector<void *> cuda_streams;
};

struct Work {
    double flops = 0, bytes = 0, host_bytes = 0, device_bytes = 0;
    double items = 0;  // keys, pixels...: counted in Info::item_name
    gpubench_math math = GPUBENCH_MATH_FP32;  // what the flops are (ABI 1.3)
    uint32_t flags = 0;                       // GPUBENCH_WORK_* (ABI 1.3)
};

// A named figure about the result (see gpubench_metric). Strings longer than the C
// struct's fields are truncated at the boundary.
struct Metric {
    std::string name;
    double value = 0;
    std::string unit;
    std::string text;
};

struct Verification {
    bool passed = false;
    double max_error = 0, tolerance = 0;
    uint64_t checked = 0;
    std::string detail;
};

// The descriptor's data, without function pointers.
struct Info {
    const char *name, *workload, *backend;
    gpubench_device_kind device_kind;
    const char *description, *size_meaning, *version, *params_help;
    uint64_t min_size, max_size;
    std::vector<uint64_t> default_sizes;
    const char *item_name = nullptr;  // what Work::items counts; nullptr = none
    gpubench_headline headline = GPUBENCH_HEADLINE_AUTO;  // throughput shown first
    // The keys Params::get reads, comma-separated; "" = none; nullptr = not declared (the
    // runner then cannot catch a mistyped --param for this plugin).
    const char *param_names = nullptr;
    // ABI 1.5: how many GPUs the plugin can work across at once; 1 = a single-device plugin.
    uint32_t max_devices = 1;
};

namespace detail {

// The verification's detail into the C struct's field; one that does not fit says so at its
// end, with its whole length, rather than stopping mid-word unannounced.
template <size_t N>
void copy_detail(const std::string &text, char (&out)[N]) {
    if (text.size() < N) {
        std::snprintf(out, N, "%s", text.c_str());
        return;
    }
    const std::string mark = " [cut: " + std::to_string(text.size()) + " characters]";
    std::snprintf(out, N, "%.*s%s", static_cast<int>(N - 1 - mark.size()), text.c_str(), mark.c_str());
}

inline void write_message(char *buffer, size_t size, const char *text) noexcept {
    if (buffer && size) std::snprintf(buffer, size, "%s", text);
}

template <class F>
gpubench_status guarded(char *message, size_t message_size, F &&body) noexcept {
    try {
        body();
        return GPUBENCH_OK;
    } catch (const Error &e) {
        write_message(message, message_size, e.what());
        return e.status();
    } catch (const std::bad_alloc &) {
        write_message(message, message_size, "host allocation failed (std::bad_alloc)");
        return GPUBENCH_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        write_message(message, message_size, e.what());
        return GPUBENCH_ERROR;
    } catch (...) {
        write_message(message, message_size, "unknown exception");
        return GPUBENCH_ERROR;
    }
}

// Detects optional methods so that absent ones become NULL in the descriptor.
#define GPUBENCH_DETAIL_HAS_METHOD(method)                                             \
    template <class T, class = void>                                                   \
    struct has_##method : std::false_type {};                                          \
    template <class T>                                                                 \
    struct has_##method<T, std::void_t<decltype(std::declval<T &>().method())>>        \
        : std::true_type {};
GPUBENCH_DETAIL_HAS_METHOD(upload)
GPUBENCH_DETAIL_HAS_METHOD(reset)
GPUBENCH_DETAIL_HAS_METHOD(download)
GPUBENCH_DETAIL_HAS_METHOD(metrics)
#undef GPUBENCH_DETAIL_HAS_METHOD

// T::work with a device count (multi-device plugins), preferred over T::work(size, params).
// Detected the C++17 way: the helper must compile for plugins built as C++17.
template <class T, class = void>
struct has_work_for_devices : std::false_type {};
template <class T>
struct has_work_for_devices<
    T, std::void_t<decltype(T::work(uint64_t{}, std::declval<const Params &>(), int{}))>>
    : std::true_type {};

template <class T>
Work work_of(uint64_t size, const Params &params, int devices) {
    if constexpr (has_work_for_devices<T>::value)
        return T::work(size, params, devices);
    else
        return T::work(size, params);
}

// The devices and streams of create()'s arguments; the single pair from a runner before 1.5.
inline void read_devices(const gpubench_setup_args &args, Setup &setup) {
    if (GPUBENCH_HAS_FIELD(&args, gpubench_setup_args, cuda_streams) && args.device_count > 0 &&
        args.cuda_devices && args.cuda_streams) {
        setup.cuda_devices.assign(args.cuda_devices, args.cuda_devices + args.device_count);
        setup.cuda_streams.assign(args.cuda_streams, args.cuda_streams + args.device_count);
    } else if (args.cuda_stream) {
        setup.cuda_devices = {args.cuda_device};
        setup.cuda_streams = {args.cuda_stream};
    }
}

template <class T>
struct Adapter {
    static T &self(gpubench_instance *instance) { return *reinterpret_cast<T *>(instance); }

    static gpubench_status work(uint64_t size, const char *params, gpubench_work *out,
                                char *message, size_t message_size) noexcept {
        return guarded(message, message_size, [&] {
            const bool told = GPUBENCH_HAS_FIELD(out, gpubench_work, devices) && out->devices > 0;
            const int devices = told ? out->devices : 1;  // a runner before 1.5: one device
            Work w = work_of<T>(size, Params(params), devices);
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, flops)) out->flops = w.flops;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, bytes)) out->bytes = w.bytes;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, host_bytes)) out->host_bytes = w.host_bytes;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, device_bytes))
                out->device_bytes = w.device_bytes;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, items)) out->items = w.items;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, math)) out->math = w.math;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, flags)) out->flags = w.flags;
        });
    }
    static gpubench_status create(const gpubench_setup_args *args, gpubench_instance **out,
                                  char *message, size_t message_size) noexcept {
        *out = nullptr;
        return guarded(message, message_size, [&] {
            Setup setup;
            setup.size = args->size;
            setup.seed = args->seed;
            setup.cpu_threads = args->cpu_threads;
            setup.cuda_device = args->cuda_device;
            setup.cuda_stream = args->cuda_stream;
            setup.params = Params(args->params);
            read_devices(*args, setup);
            *out = reinterpret_cast<gpubench_instance *>(new T(setup));
        });
    }
    static gpubench_status upload(gpubench_instance *i, char *m, size_t n) noexcept {
        if constexpr (has_upload<T>::value) return guarded(m, n, [&] { self(i).upload(); });
        return GPUBENCH_OK;
    }
    static gpubench_status reset(gpubench_instance *i, char *m, size_t n) noexcept {
        if constexpr (has_reset<T>::value) return guarded(m, n, [&] { self(i).reset(); });
        return GPUBENCH_OK;
    }
    static gpubench_status run(gpubench_instance *i, char *m, size_t n) noexcept {
        return guarded(m, n, [&] { self(i).run(); });
    }
    static gpubench_status download(gpubench_instance *i, char *m, size_t n) noexcept {
        if constexpr (has_download<T>::value) return guarded(m, n, [&] { self(i).download(); });
        return GPUBENCH_OK;
    }
    static gpubench_status verify(gpubench_instance *i, gpubench_verification *out, char *m,
                                  size_t n) noexcept {
        return guarded(m, n, [&] {
            Verification v = self(i).verify();
            out->passed = v.passed ? 1 : 0;
            out->max_error = v.max_error;
            out->tolerance = v.tolerance;
            out->checked = v.checked;
            copy_detail(v.detail, out->detail);
        });
    }
    static gpubench_status metrics(gpubench_instance *i, gpubench_metric *out,
                                   uint32_t capacity, uint32_t *count, char *m,
                                   size_t n) noexcept {
        *count = 0;
        if constexpr (has_metrics<T>::value)
            return guarded(m, n, [&] {
                const std::vector<Metric> all = self(i).metrics();
                for (const Metric &metric : all) {
                    if (*count == capacity) break;
                    gpubench_metric &o = out[(*count)++];
                    std::snprintf(o.name, sizeof o.name, "%s", metric.name.c_str());
                    std::snprintf(o.unit, sizeof o.unit, "%s", metric.unit.c_str());
                    o.value = metric.value;
                    if (GPUBENCH_HAS_FIELD(&o, gpubench_metric, text))
                        std::snprintf(o.text, sizeof o.text, "%s", metric.text.c_str());
                }
            });
        return GPUBENCH_OK;
    }
    static void destroy(gpubench_instance *i) noexcept {
        try {
            delete reinterpret_cast<T *>(i);
        } catch (...) {
            // A destructor that throws must not take the runner down.
        }
    }
};

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

}  // namespace detail
}  // namespace gpubench

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
