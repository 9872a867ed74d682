#include "entry_measurer.hpp"

#include "check.hpp"
#include "device_trace.hpp"
#include "elapsed.hpp"
#include "gpu.hpp"
#include "plugin_instance.hpp"
#include "run_hold.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <utility>

namespace gpubench {

namespace {

// `from_s`, the budget's size's, scaled to `size` by how much more the next size declares,
// by the first measure both declare (else sizes); 0 when nothing can be said.
double scaled(const RunBudget &budget, double from_s, std::initializer_list<std::pair<double, double>> measures,
              uint64_t size) {
    if (from_s <= 0 || budget.from_size == 0 || budget.from_size >= size) return 0;
    for (const auto &[last, next] : measures)
        if (last > 0 && next > 0) return from_s * (next / last);
    return from_s * (double(size) / double(budget.from_size));
}

}  // namespace

double predicted_run_s(const RunBudget &budget, const Work &next, uint64_t size) {
    const Work &last = budget.from_work;
    return scaled(budget, budget.from_median_s,
                  {{last.flops, next.flops}, {last.bytes, next.bytes}, {last.items, next.items}}, size);
}

double predicted_outside_s(const RunBudget &budget, const Work &next, uint64_t size) {
    const Work &last = budget.from_work;
    return scaled(budget, budget.from_outside_s,
                  {{last.host_bytes, next.host_bytes}, {last.bytes, next.bytes}, {last.items, next.items}}, size);
}

namespace {

// Why to skip `size` under `budget`, and whether for the schedule; no why: measure it (also when
// work() fails: measuring says why; and for an entry measured across ranks, which every rank
// measures or none).
struct BudgetSkip {
    std::string why;
    bool behind_schedule = false;
};
BudgetSkip over_budget(const Plugin &plugin, uint64_t size, const MeasureOptions &options, const RunBudget &budget,
                       int devices) {
    Work next;
    try {
        next = query_work(plugin.api(), size, options.params, devices, static_cast<int>(options.world.ranks));
    } catch (const PluginFailure &) {
        return {};
    }
    if (measured_across_ranks(next, options)) return {};
    const auto from = static_cast<unsigned long long>(budget.from_size);
    const auto at = static_cast<unsigned long long>(size);
    if (const double run_s = predicted_run_s(budget, next, size); budget.limit_s > 0 && run_s > budget.limit_s)
        return {format_text("over the default sweep's budget: one run() is predicted to take %.3g s (from "
                            "size %llu), above %.3g s; --sizes %llu runs it", run_s, from, budget.limit_s, at)};
    if (budget.outside_limit_s <= 0) return {};
    const char *over = budget.behind ? behind_schedule_text : "over the sweep's budget for an entry on every GPU";
    const auto refuse = [&](const char *what, double seconds) {
        return BudgetSkip{format_text("%s: its %s predicted to take %.3g s (from size %llu), above %.3g s; "
                                      "--sizes %llu runs it", over, what, seconds, from, budget.outside_limit_s, at),
                          budget.behind};
    };
    if (const double outside_s = predicted_outside_s(budget, next, size); outside_s > budget.outside_limit_s)
        return refuse("set-up and checks are", outside_s);
    // Sampling stops at its share, but never before a warm-up and one sample.
    const double least_sampling_s = double(options.warmup_runs + 1) * predicted_run_s(budget, next, size);
    if (least_sampling_s > budget.outside_limit_s) return refuse("warm-up and one sample are", least_sampling_s);
    return {};
}

}  // namespace

EntryMeasurer::EntryMeasurer(Roofline host_roofline) {
    host_timer_.set_roofline(std::move(host_roofline));
}

EntryMeasurer::~EntryMeasurer() = default;

std::string EntryMeasurer::prepare(const Plugin &plugin, int cuda_device) {
    if (!plugin.is_cuda()) return "";
    if (!lost_.empty()) return lost_;
    if (!cuda_timer_ && cuda_unavailable_.empty()) {
        try {
            cuda_timer_ = make_cuda_event_timer(cuda_device);
        } catch (const std::exception &e) {
            cuda_unavailable_ = e.what();
        }
    }
    return cuda_unavailable_;
}

void EntryMeasurer::prepare_ahead(const Plugin &plugin, int cpu_threads, bool trace) {
    if (plugin.is_cuda() && !cuda_timer_) return;  // no CUDA: its entries are skipped anyway
    prepare_once(plugin, cpu_threads);
    std::string untraced;
    if (trace && plugin.is_cuda()) device_trace(untraced);
}

const EntryMeasurer::Prepared &EntryMeasurer::prepare_once(const Plugin &plugin, int cpu_threads) {
    auto found = prepared_.find(&plugin.api());
    if (found != prepared_.end()) return found->second;
    Prepared p;
    if (const auto prepare = plugin.prepare_fn()) {
        char message[1024] = "";
        const auto began = std::chrono::steady_clock::now();
        p.status = prepare(cpu_threads, message, sizeof message);
        p.seconds = seconds_since(began);
        message[sizeof message - 1] = '\0';  // the plugin's buffer: terminated whatever it wrote
        if (p.status != GPUBENCH_OK) p.message = printable_text(*message ? message : "prepare() failed");
    }
    return prepared_.emplace(&plugin.api(), std::move(p)).first->second;
}

PhaseTimer &EntryMeasurer::timer_for(const Plugin &plugin, const std::vector<int> &devices) {
    if (!plugin.is_cuda()) return host_timer_;
    if (devices.size() <= 1) return *cuda_timer_;
    if (!multi_device_timer_ || multi_device_timer_->cuda_devices() != devices) {
        multi_device_timer_.reset();  // its streams and events go before another's are made
        multi_device_timer_ = make_multi_device_timer(devices);
    }
    return *multi_device_timer_;
}

double EntryMeasurer::prepare_seconds(const Plugin &plugin) const {
    auto found = prepared_.find(&plugin.api());
    return found == prepared_.end() ? 0 : found->second.seconds;
}

Measurement EntryMeasurer::measure(const Plugin &plugin, uint64_t size,
                                   const MeasureOptions &options, const StageObserver &observe,
                                   const std::optional<RunBudget> &budget) {
    if (std::string why = prepare(plugin, options.cuda_device); !why.empty())
        return skipped_entry(plugin.info(), size, "unavailable: " + why);
    if (const Prepared &p = prepare_once(plugin, options.cpu_threads); p.status != GPUBENCH_OK) {
        Measurement failed = skipped_entry(plugin.info(), size, "unavailable: " + p.message);
        if (p.status != GPUBENCH_NOT_SUPPORTED) {
            failed.status = EntryStatus::error;
            failed.message = "prepare: " + p.message;
        }
        return failed;
    }
    // After prepare(): the prediction calls work(), which a Python plugin answers in the
    // interpreter that prepare() started with the run's thread caps.
    const std::vector<int> devices = entry_cuda_devices(plugin.info(), options);
    const int device_count = std::max(1, static_cast<int>(devices.size()));
    if (budget)
        if (BudgetSkip skip = over_budget(plugin, size, options, *budget, device_count); !skip.why.empty()) {
            Measurement skipped = skipped_entry(plugin.info(), size, std::move(skip.why));
            skipped.behind_schedule = skip.behind_schedule;
            return skipped;
        }
    PhaseTimer *timer = nullptr;
    try {
        timer = &timer_for(plugin, devices);
    } catch (const std::exception &e) {
        return skipped_entry(plugin.info(), size, std::string("unavailable: ") + e.what());
    }
    // A plugin whose hold needed its watchdog once is not held again in this process: each of
    // its entries would otherwise wait for the watchdog too.
    const auto unheld = unheld_.find(&plugin.api());
    MeasureOptions entry_options = options;
    if (unheld != unheld_.end()) entry_options.hold_stream = false;
    Measurement entry = measure_entry(plugin, size, entry_options, *timer, observe);
    if (unheld != unheld_.end() && !entry.timing.samples.run.empty() && options.hold_stream)
        entry.timing.stream_hold = unheld->second;
    else if (released_by_watchdog(entry.timing.stream_hold))
        unheld_[&plugin.api()] = "not held: at size " + std::to_string(size) + " " +
                                 entry.timing.stream_hold.substr(std::string("not held: ").size());
    if (plugin.is_cuda())
        if (std::string why = note_lost_cuda_context(entry); !why.empty()) {
            lost_ = why;
            multi_device_timer_.reset();
            cuda_timer_.reset();
        }
    return entry;
}

}  // namespace gpubench
