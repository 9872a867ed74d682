// The C ABI's functions over a plugin class: each phase a static function that calls the
// class's method inside the exception guard, and absent optional methods detected so that
// they become NULL in the descriptor (gpubench/registration.hpp).
#pragma once

#include <gpubench/descriptor.hpp>
#include <gpubench/guard.hpp>
#include <gpubench/plugin.h>

#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpubench::detail {

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

// T::work with the device count and the ranks measuring together (ABI 1.7), preferred over both.
template <class T, class = void>
struct has_work_for_ranks : std::false_type {};
template <class T>
struct has_work_for_ranks<
    T, std::void_t<decltype(T::work(uint64_t{}, std::declval<const Params &>(), int{}, int{}))>>
    : std::true_type {};

template <class T>
Work work_of(uint64_t size, const Params &params, int devices, int ranks) {
    if constexpr (has_work_for_ranks<T>::value)
        return T::work(size, params, devices, ranks);
    else if constexpr (has_work_for_devices<T>::value)
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

// The ranks measuring together; rank 0 of 1 from a runner before 1.7.
inline void read_ranks(const gpubench_setup_args &args, Setup &setup) {
    if (!GPUBENCH_HAS_FIELD(&args, gpubench_setup_args, rank_timeout_s) || args.ranks < 1) return;
    setup.rank = args.rank;
    setup.ranks = args.ranks;
    setup.rendezvous = args.rendezvous ? args.rendezvous : "";
    setup.rank_timeout_s = args.rank_timeout_s;
}

template <class T>
struct Adapter {
    static T &self(gpubench_instance *instance) { return *reinterpret_cast<T *>(instance); }

    static gpubench_status work(uint64_t size, const char *params, gpubench_work *out,
                                char *message, size_t message_size) noexcept {
        return guarded(message, message_size, [&] {
            const bool told = GPUBENCH_HAS_FIELD(out, gpubench_work, devices) && out->devices > 0;
            const int devices = told ? out->devices : 1;  // a runner before 1.5: one device
            const bool ranked = GPUBENCH_HAS_FIELD(out, gpubench_work, ranks) && out->ranks > 0;
            const int ranks = ranked ? out->ranks : 1;  // a runner before 1.7: alone
            Work w = work_of<T>(size, Params(params), devices, ranks);
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, flops)) out->flops = w.flops;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, bytes)) out->bytes = w.bytes;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, host_bytes)) out->host_bytes = w.host_bytes;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, device_bytes))
                out->device_bytes = w.device_bytes;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, items)) out->items = w.items;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, math)) out->math = w.math;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, flags)) out->flags = w.flags;
            if (GPUBENCH_HAS_FIELD(out, gpubench_work, launches)) out->launches = w.launches;
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
            read_ranks(*args, setup);
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
                    gpubench_metric &o = *GPUBENCH_METRIC_AT(out, (*count)++);
                    std::snprintf(o.name, sizeof o.name, "%s", metric.name.c_str());
                    std::snprintf(o.unit, sizeof o.unit, "%s", metric.unit.c_str());
                    o.value = metric.value;
                    if (GPUBENCH_HAS_FIELD(&o, gpubench_metric, text))
                        std::snprintf(o.text, sizeof o.text, "%s", metric.text.c_str());
                    if (GPUBENCH_HAS_FIELD(&o, gpubench_metric, better)) o.better = metric.better;
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

}  // namespace gpubench::detail
