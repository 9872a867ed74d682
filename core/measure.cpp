#include "measure.hpp"

#include "gpu.hpp"
#include "host_resources.hpp"
#include "plugin_instance.hpp"
#include "resource_watch.hpp"
#include "statistics.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace gpubench {

const char *to_string(EntryStatus status) {
    switch (status) {
        case EntryStatus::ok: return "ok";
        case EntryStatus::verification_failed: return "verification_failed";
        case EntryStatus::error: return "error";
        case EntryStatus::skipped: return "skipped";
    }
    return "error";
}

EntryStatus entry_status_from_string(const std::string &text) {
    for (EntryStatus s : {EntryStatus::ok, EntryStatus::verification_failed, EntryStatus::error,
                          EntryStatus::skipped})
        if (text == to_string(s)) return s;
    throw std::invalid_argument("unknown entry status '" + text + "'");
}

std::string note_lost_cuda_context(EntryResult &entry) {
    const std::string lost = cuda_sticky_error();
    if (lost.empty()) return "";
    const std::string why = "the CUDA context was lost (" + lost + ")";
    if (entry.status == EntryStatus::ok) {
        entry.status = EntryStatus::error;
        entry.message = why;
    }
    return why;
}

std::string size_range_problem(const Plugin &plugin, uint64_t size) {
    const gpubench_plugin &api = plugin.api();
    if (size < api.min_size)
        return "size " + std::to_string(size) + " is below " + plugin.name() + "'s minimum " +
               std::to_string(api.min_size);
    if (size > api.max_size)
        return "size " + std::to_string(size) + " is above " + plugin.name() + "'s maximum " +
               std::to_string(api.max_size);
    return "";
}

namespace {

EntryStatus status_for_failure(gpubench_status status) {
    return status == GPUBENCH_OUT_OF_MEMORY || status == GPUBENCH_NOT_SUPPORTED
               ? EntryStatus::skipped
               : EntryStatus::error;
}

const char *prefix_for_failure(gpubench_status status) {
    switch (status) {
        case GPUBENCH_OUT_OF_MEMORY: return "out of memory: ";
        case GPUBENCH_NOT_SUPPORTED: return "not supported: ";
        case GPUBENCH_INVALID_ARGUMENT: return "invalid argument: ";
        case GPUBENCH_DEVICE_ERROR: return "device error: ";
        default: return "";
    }
}

// "needs ~X GiB of host memory, Y GiB available" when the plugin's declared footprint cannot
// fit, so that a size far too large is refused before anything is allocated.
std::string footprint_problem(const Work &work, const PhaseTimer &timer) {
    const auto gib = [](double bytes) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3g GiB", bytes / (1024.0 * 1024 * 1024));
        return std::string(text);
    };
    const auto check = [&](double needed, std::optional<uint64_t> available, const char *what) {
        if (!available || needed <= static_cast<double>(*available)) return std::string();
        return "needs ~" + gib(needed) + " of " + what + ", " + gib(static_cast<double>(*available)) +
               " available (the plugin's declared footprint)";
    };
    std::string problem = check(work.host_bytes, available_host_memory(), "host memory");
    if (const auto device = timer.device_memory(); problem.empty() && device)
        problem = check(work.device_bytes, device->free, "device memory");
    return problem;
}

void sample(Instance &instance, const gpubench_plugin &api, const MeasureOptions &options,
            PhaseTimer &timer, EntryResult &result, const StageObserver &stage,
            ResourceWatch &watch) {
    using clock = std::chrono::steady_clock;
    const auto began = clock::now();
    double measured = 0, timed = 0;
    const auto flush = [&] {
        if (options.cold && timer.flush_cache()) result.cache = "cold";
    };
    stage("warm-up");
    for (int i = 0; i < options.warmup_runs; ++i) {
        instance.timed("upload", api.upload, timer);
        instance.call("reset", api.reset);
        flush();
        double run = instance.timed("run", api.run, timer);
        if (i == 0) result.first_run_s = run;
        instance.timed("download", api.download, timer);
    }
    stage("samples");
    watch.begin_sampling();
    struct EndSampling {  // on every way out of the loop below
        ResourceWatch &watch;
        const double &timed;
        ~EndSampling() { watch.end_sampling(timed); }
    } end_sampling{watch, timed};
    for (;;) {
        double up = instance.timed("upload", api.upload, timer);
        instance.call("reset", api.reset);
        flush();
        double run = instance.timed("run", api.run, timer);
        double down = instance.timed("download", api.download, timer);
        if (up >= 0) result.upload_s.push_back(up);
        result.run_s.push_back(run);
        if (down >= 0) result.download_s.push_back(down);
        measured += run;
        timed += run + std::max(up, 0.0) + std::max(down, 0.0);

        const size_t n = result.run_s.size();
        const double elapsed = std::chrono::duration<double>(clock::now() - began).count();
        const bool enough = n >= options.min_samples && measured >= options.min_time_s;
        if (enough || n >= options.max_samples || elapsed >= options.max_time_s) {
            result.noise = median_relative_standard_error(result.run_s);
            // With the criterion off (max_noise 0) nothing was asked of the noise.
            result.noise_converged = options.max_noise <= 0 || result.noise <= options.max_noise;
        }
        if (enough && (options.max_noise <= 0 || result.noise_converged)) {
            result.stop_reason = options.max_noise > 0 ? "noise below max_noise"
                                                       : "min_samples and min_time reached";
            return;
        }
        if (n >= options.max_samples) {
            result.stop_reason = "max_samples reached";
            return;
        }
        if (elapsed >= options.max_time_s) {
            result.stop_reason = "max_time reached";
            return;
        }
    }
}

// A run() shorter than this on the GPU is also timed in batches, since one launch between
// two events includes the launch and event overhead (microseconds).
constexpr double batch_below_s = 100e-6;
constexpr double batch_target_s = 1e-3;  // a batch lasts about this long
constexpr size_t batch_most = 1000;

// Batches of back-to-back run() calls between one pair of events, for short GPU runs. Not for
// cold entries (each run needs its flush) nor for plugins with reset() (each run needs its
// untimed reset).
void sample_batched(Instance &instance, const gpubench_plugin &api, const MeasureOptions &options,
                    PhaseTimer &timer, EntryResult &result) {
    const double single = summarize(result.run_s).median;
    if (!timer.cuda_stream() || api.reset || result.cache == "cold" || single <= 0 ||
        single >= batch_below_s)
        return;
    result.batch_size = std::clamp<size_t>(static_cast<size_t>(batch_target_s / single), 2, batch_most);
    for (size_t sample = 0; sample < std::max<size_t>(options.min_samples, 1); ++sample) {
        timer.start();
        for (size_t i = 0; i < result.batch_size; ++i) instance.call("run", api.run);
        result.batched_run_s.push_back(timer.stop() / static_cast<double>(result.batch_size));
    }
}

}  // namespace

EntryResult measure_entry(const Plugin &plugin, uint64_t size, const MeasureOptions &options,
                          PhaseTimer &timer, const StageObserver &observe) {
    const gpubench_plugin &api = plugin.api();
    const char *current_stage = "work";
    const auto stage = [&](const char *name) {
        current_stage = name;
        if (observe) observe(name);
    };
    EntryResult result;
    result.plugin = plugin.name();
    result.size = size;
    result.clock = timer.clock_name();
    result.item_name = plugin.item_name();
    result.headline = plugin.headline();
    if (std::string why = size_range_problem(plugin, size); !why.empty()) {
        result.status = EntryStatus::skipped;
        result.message = why;
        return result;
    }
    try {
        stage("work");
        result.work = query_work(api, size, options.params);
        if (std::string why = footprint_problem(result.work, timer); !why.empty())
            throw PluginFailure{GPUBENCH_OUT_OF_MEMORY, why};
        gpubench_setup_args args{};
        args.struct_size = sizeof args;
        args.size = size;
        args.seed = options.seed;
        args.cpu_threads = options.cpu_threads;
        args.cuda_device = options.cuda_device;
        args.cuda_stream = timer.cuda_stream();
        args.params = options.params.c_str();
        stage("setup");
        ResourceWatch watch(timer);
        const auto setup_began = std::chrono::steady_clock::now();
        Instance instance(api, args);
        result.setup_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_began).count();
        sample(instance, api, options, timer, result, stage, watch);
        sample_batched(instance, api, options, timer, result);
        stage("verify");
        result.verification = instance.verify();
        stage("metrics");
        result.metrics = instance.metrics(plugin.metrics_fn());
        result.resources = watch.finish();
        stage("teardown");
        result.status =
            result.verification.passed ? EntryStatus::ok : EntryStatus::verification_failed;
        if (!result.verification.passed) {
            char text[128];
            std::snprintf(text, sizeof text, "wrong result: error %.3g exceeds tolerance %.3g",
                          result.verification.max_error, result.verification.tolerance);
            result.message = text;
        }
    } catch (const PluginFailure &failure) {
        result.status = status_for_failure(failure.status);
        result.message = prefix_for_failure(failure.status) + failure.message;
    } catch (const std::exception &e) {  // the timer's device errors, or a plugin's exception
        result.status = EntryStatus::error;
        result.message = std::string("in ") + current_stage + ": " + e.what();
    } catch (...) {  // crossed the C boundary, which a plugin must never let happen
        result.status = EntryStatus::error;
        result.message = std::string("in ") + current_stage +
                         ": an exception of unknown type escaped the plugin";
    }
    return result;
}

}  // namespace gpubench
