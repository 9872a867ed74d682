#include "measure.hpp"

#include "check.hpp"
#include "elapsed.hpp"
#include "gpu.hpp"
#include "hardware_counters.hpp"
#include "leak.hpp"
#include "nvtx_range.hpp"
#include "per_launch.hpp"
#include "plugin_instance.hpp"
#include "resource_watch.hpp"
#include "sampling.hpp"
#include "text_format.hpp"
#include "work_mismatch.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

namespace gpubench {

Measurement skipped_entry(const PluginInfo &plugin, uint64_t size, std::string reason) {
    Measurement entry;
    entry.plugin = plugin.name;
    entry.size = size;
    entry.item_name = plugin.item_name;
    entry.headline = plugin.headline;
    entry.status = EntryStatus::skipped;
    entry.message = std::move(reason);
    return entry;
}

std::string size_range_problem(const PluginInfo &plugin, uint64_t size) {
    if (size < plugin.min_size)
        return "size " + std::to_string(size) + " is below " + plugin.name + "'s minimum " +
               std::to_string(plugin.min_size);
    if (size > plugin.max_size)
        return "size " + std::to_string(size) + " is above " + plugin.name + "'s maximum " +
               std::to_string(plugin.max_size);
    return "";
}

double working_set_bytes(const Work &work, bool on_gpu) {
    const double held = on_gpu ? work.device_bytes : work.host_bytes;
    return held > 0 ? std::min(held, work.bytes > 0 ? work.bytes : held) : work.bytes;
}

void hold_to_level(Measurement &e, const Roofline &roofline, bool caches_flushed) {
    const bool across = e.work.flags & GPUBENCH_WORK_BYTES_INTERCONNECT;
    const MemoryLevel level =
        across ? roofline.interconnect_level()
               : roofline.level_for(working_set_bytes(e.work, !e.cuda_devices.empty()), caches_flushed);
    e.ceiling.bytes_per_s = level.bytes_per_s;
    e.ceiling.level = level.name;
    e.ceiling.level_margin = level.margin;
    e.ceiling.level_source = across ? roofline.interconnect.source : "";
}

namespace {

// How many of `offered` devices a plugin takes: up to its max_devices (one before ABI 1.5).
size_t devices_taken(const PluginInfo &plugin, size_t offered) {
    return std::min<size_t>(offered, std::max<uint32_t>(plugin.max_devices, 1));
}

// What a plugin's failure makes of the entry, and the words its message starts with.
std::pair<EntryStatus, const char *> failure_verdict(gpubench_status status) {
    switch (status) {
        case GPUBENCH_OUT_OF_MEMORY: return {EntryStatus::skipped, "out of memory: "};
        case GPUBENCH_NOT_SUPPORTED: return {EntryStatus::skipped, "not supported: "};
        case GPUBENCH_INVALID_ARGUMENT: return {EntryStatus::error, "invalid argument: "};
        case GPUBENCH_DEVICE_ERROR: return {EntryStatus::error, "device error: "};
        default: return {EntryStatus::error, ""};
    }
}

// The entry's identity, before anything is asked of the plugin.
Measurement new_entry(const Plugin &plugin, uint64_t size, const MeasureOptions &options,
                      const PhaseTimer &timer) {
    Measurement result;
    result.plugin = plugin.name();
    result.size = size;
    result.settings = entry_settings(options);
    result.timing.clock = timer.clock_name();
    result.timing.warmup_runs = options.warmup_runs;
    result.timing.profile_runs = options.profile_runs;
    result.timing.noise.max_noise = options.max_noise;
    result.item_name = plugin.info().item_name;
    result.headline = plugin.info().headline;
    result.unoptimized = plugin.info().built_unoptimized();
    return result;
}

const std::vector<PersistingL2> l2_none;  // a host clock's: nothing read, nothing restored

// The timer's devices and streams, as many as the plugin takes (one unless its max_devices
// is above 1); none for a host clock.
struct TakenDevices {
    std::vector<int32_t> devices;
    std::vector<void *> streams;
};
TakenDevices take_devices(const PluginInfo &plugin, const PhaseTimer &timer) {
    TakenDevices taken{timer.cuda_devices(), timer.cuda_streams()};
    const size_t count = devices_taken(plugin, taken.devices.size());
    taken.devices.resize(count);
    taken.streams.resize(std::min(taken.streams.size(), count));
    return taken;
}

// The declared work and the ceilings it is judged against; work that cannot fit is refused.
void read_work(const gpubench_plugin &api, uint64_t size, const MeasureOptions &options,
               size_t devices, const PhaseTimer &timer, Measurement &result) {
    result.work = query_work(api, size, options.params, std::max(1, static_cast<int>(devices)),
                             static_cast<int>(options.world.ranks));
    const Roofline &roofline = timer.roofline();
    result.ceiling.flops = roofline.flops_for(result.work.math);
    result.ceiling.cache_bytes = roofline.cache_bytes;
    result.ceiling.margin = roofline.margin;
    hold_to_level(result, roofline, options.cold && timer.real_streams());
    if (std::string why = footprint_problem(result.work, timer); !why.empty())
        throw PluginFailure{GPUBENCH_OUT_OF_MEMORY, why};
}

gpubench_setup_args setup_args(uint64_t size, const MeasureOptions &options,
                               const PhaseTimer &timer, TakenDevices &taken) {
    gpubench_setup_args args{};
    args.struct_size = sizeof args;
    args.size = size;
    args.seed = options.seed;
    args.cpu_threads = options.cpu_threads;
    args.cuda_device = taken.devices.empty() ? options.cuda_device : taken.devices.front();
    args.cuda_stream = timer.cuda_stream();
    args.params = options.params.c_str();
    args.device_count = static_cast<int32_t>(taken.devices.size());
    args.cuda_devices = taken.devices.empty() ? nullptr : taken.devices.data();
    args.cuda_streams = taken.streams.empty() ? nullptr : taken.streams.data();
    args.rank = static_cast<int32_t>(options.world.rank);
    args.ranks = static_cast<int32_t>(options.world.ranks);
    args.rank_timeout_s = options.world.timeout_s;
    return args;
}

// An entry measured across ranks: its ranks' folder made, and no timed span waited for longer
// than the ranks wait for one another, with the cause named (a peer that stopped calling run()
// would leave it waiting for ever). Undone when the entry ends.
class AcrossRanks {
public:
    AcrossRanks(const MeasureOptions &options, PhaseTimer &timer, Measurement &result,
                gpubench_setup_args &args)
        : timer_(timer) {
        result.rank = options.world.rank;
        result.ranks = options.world.ranks;
        std::error_code error;
        std::filesystem::create_directories(options.rendezvous, error);
        if (options.rendezvous.empty() || error)
            throw EntryProblem{EntryStatus::error, "cannot make the ranks' folder '" + options.rendezvous +
                                                       "': " + (error ? error.message() : "none given")};
        args.rendezvous = options.rendezvous.c_str();
        timer.limit_waits(options.world.timeout_s,
                          "waited " + format_text("%g", options.world.timeout_s) +
                              " s (--rank-timeout) for a collective across " +
                              std::to_string(options.world.ranks) + " ranks to end (this is rank " +
                              std::to_string(options.world.rank) + "): another rank stopped taking part (it "
                              "failed, skipped or crashed in this entry, or measures another sweep)");
    }
    ~AcrossRanks() { timer_.limit_waits(0, ""); }
    AcrossRanks(const AcrossRanks &) = delete;
    AcrossRanks &operator=(const AcrossRanks &) = delete;

private:
    PhaseTimer &timer_;
};

// ok, or invalid with every refusal the record shows (checks/check.hpp). A cold entry whose
// L2 could not be flushed is held to the level its working set fits in after all.
void judge_result(Measurement &result, const MeasureOptions &options, const PhaseTimer &timer) {
    if (options.cold && result.timing.cache != "cold") hold_to_level(result, timer.roofline(), false);
    result.message = record_refusals(result, &result.refused_by);
    result.status = result.message.empty() ? EntryStatus::ok : EntryStatus::verification_failed;
}

// The entry's metrics: the plugin's figures about its result, then what the runner measured
// (the resource watch's, the counting pass's), with the resources themselves.
void collect_metrics(Measurement &result, std::vector<Metric> plugins, ResourceWatch &watch,
                     std::vector<Metric> counted) {
    for (Metric &m : plugins) result.metrics.push_back({std::move(m)});
    result.resources = watch.finish();
    for (const Metric &m : watch.metrics()) result.metrics.push_back({m, true});
    if (counted.empty()) return;
    for (Metric &m : counted) result.metrics.push_back({std::move(m), true});
    for (Metric &m : counted_work_figures(result)) result.metrics.push_back({std::move(m), true});
}

// The exception being handled, as the entry's status and message.
void record_failure(Measurement &result, const char *stage, size_t runs_done, LeakWatch *leaks) {
    try {
        throw;
    } catch (const EntryProblem &problem) {
        result.status = problem.status;
        result.message = problem.message;
        result.refused_by = problem.check;
    } catch (const PluginFailure &failure) {
        const auto [status, prefix] = failure_verdict(failure.status);
        result.status = status;
        result.message = prefix + failure.message;
        if (failure.status == GPUBENCH_OUT_OF_MEMORY) judge_out_of_memory(result, runs_done, leaks);
    } catch (const std::exception &e) {  // the timer's device errors, or a plugin's exception
        result.status = EntryStatus::error;
        result.message = std::string("in ") + stage + ": " + e.what();
    } catch (...) {  // crossed the C boundary, which a plugin must never let happen
        result.status = EntryStatus::error;
        result.message =
            std::string("in ") + stage + ": an exception of unknown type escaped the plugin";
    }
}

}  // namespace

std::vector<int> selected_cuda_devices(const MeasureOptions &options) {
    std::vector<int> devices{options.cuda_device};
    for (int device : options.cuda_devices)
        if (std::find(devices.begin(), devices.end(), device) == devices.end())
            devices.push_back(device);
    return devices;
}

std::vector<int> entry_cuda_devices(const PluginInfo &plugin, const MeasureOptions &options) {
    if (!plugin.is_cuda()) return {};
    std::vector<int> devices = selected_cuda_devices(options);
    devices.resize(devices_taken(plugin, devices.size()));
    return devices;
}

Measurement measure_entry(const Plugin &plugin, uint64_t size, const MeasureOptions &options,
                          PhaseTimer &timer, const StageObserver &observe) {
    const gpubench_plugin &api = plugin.api();
    const char *current_stage = "work";
    const auto stage = [&](const char *name) {
        current_stage = name;
        if (observe) observe(name);
    };
    Measurement result = new_entry(plugin, size, options, timer);
    size_t runs_done = 0;
    std::optional<LeakWatch> leaks;
    std::optional<Instance> instance;
    const auto teardown = [&] {  // destroy() is the plugin's time too
        if (!instance) return;
        const auto began = std::chrono::steady_clock::now();
        const double before = instance->plugin_time_s();
        instance.reset();
        result.plugin_time_s = before + seconds_since(began);
    };
    TakenDevices taken = take_devices(plugin.info(), timer);
    result.cuda_devices = taken.devices;
    std::optional<AcrossRanks> across_ranks;
    try {
        stage("work");
        read_work(api, size, options, taken.devices.size(), timer, result);
        gpubench_setup_args args = setup_args(size, options, timer, taken);
        if (measured_across_ranks(result.work, options)) across_ranks.emplace(options, timer, result, args);
        stage("setup");
        const auto l2_before = timer.real_streams() ? read_persisting_l2(taken.devices, taken.streams) : l2_none;
        ResourceWatch watch(timer);
        leaks.emplace(timer);
        const auto setup_began = std::chrono::steady_clock::now();
        instance.emplace(api, args,
                         options.nvtx ? nvtx_entry_label(plugin.info().name, size, options.params) : "");
        result.timing.setup = seconds_since(setup_began);
        sample(*instance, api, options, timer, result, stage, watch, *leaks, runs_done);
        time_per_launch(*instance, api, options, timer, result);
        std::vector<Metric> counted;
        if (options.counters) {
            stage("counters");
            counted = count_one_run(*instance, api, timer, result, counting_time_limit_s(options.max_time_s));
        }
        stage("verify");
        result.verification = instance->verify();
        stage("metrics");
        collect_metrics(result, instance->metrics(plugin.metrics_fn()), watch, std::move(counted));
        stage("teardown");
        teardown();
        result.persisting_l2_left = restore_persisting_l2(l2_before, taken.devices, taken.streams);
        judge_result(result, options, timer);
    } catch (...) {
        record_failure(result, current_stage, runs_done, leaks ? &*leaks : nullptr);
    }
    teardown();
    return result;
}

}  // namespace gpubench
