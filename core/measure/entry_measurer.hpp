// Measuring entries in this process (a worker's, or --in-process): the one place that picks a
// plugin's clock (CUDA events on a stream made once per process; the host clock, with the
// host's measured roofline, for CPU plugins) and notes a lost CUDA context.
#pragma once

#include "measure.hpp"
#include "plugin_library.hpp"
#include "roofline.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// How the message of a skip for the time a --budget sweep is behind by begins; such an entry
// is marked behind_schedule, and --devices' lanes take it up again (sweep_budget.hpp).
inline constexpr char behind_schedule_text[] = "over the sweep's budget, which is behind its schedule";

// The default sweep's budget for one entry, skipped with the prediction when one run() is
// predicted to take longer than limit_s (the plugin's previous size's median, scaled by the
// ratio of declared flops, else bytes, items, sizes), or, in a sweep behind its --budget, when
// its set-up and checks are predicted to take longer than outside_limit_s (the previous size's,
// scaled by declared host bytes, else bytes, items, sizes; not from a worker's first entry,
// whose one-off costs do not scale).
struct RunBudget {
    double limit_s = 0;          // 0: no limit on run()
    uint64_t from_size = 0;      // the plugin's previous size measured
    double from_median_s = 0;    // its median run() time
    Work from_work;              // its declared work
    double from_outside_s = 0;   // its wall time outside sampling
    double outside_limit_s = 0;  // 0: no limit on set-up and checks
    bool behind = false;         // the limit is the schedule's (else a fixed cap's)
};

// The predicted run() time at `size`, whose declared work is `next`; 0 when nothing can be said.
double predicted_run_s(const RunBudget &budget, const Work &next, uint64_t size);
// The predicted set-up and checks at `size`; 0 when nothing can be said.
double predicted_outside_s(const RunBudget &budget, const Work &next, uint64_t size);

class EntryMeasurer {
public:
    explicit EntryMeasurer(Roofline host_roofline);
    ~EntryMeasurer();
    // Creates what `plugin` needs now (a CUDA context for a CUDA plugin), so that the first
    // entry does not pay for it; "" when ready, else why CUDA entries cannot run here.
    std::string prepare(const Plugin &plugin, int cuda_device);
    // Never throws: every failure is the entry's status. After an entry lost the CUDA context
    // (which the process cannot recover), CUDA entries are skipped with the reason; so is an
    // entry predicted to exceed `budget`, before its set-up.
    Measurement measure(const Plugin &plugin, uint64_t size, const MeasureOptions &options,
                        const StageObserver &observe = {},
                        const std::optional<RunBudget> &budget = std::nullopt);
    // What the first entry would otherwise pay for: the plugin's prepare() for `cpu_threads`
    // threads (a Python backend's interpreter and imports) and, for a CUDA plugin with
    // `trace`, the device trace's loading. Failures are left for that entry to report.
    void prepare_ahead(const Plugin &plugin, int cpu_threads, bool trace);
    bool cuda_context_lost() const { return !lost_.empty(); }
    // Seconds the plugin's prepare() (v1.4) took in this process; 0 before or without one.
    double prepare_seconds(const Plugin &plugin) const;
    void set_host_roofline(Roofline roofline) { host_timer_.set_roofline(std::move(roofline)); }

private:
    struct Prepared {
        gpubench_status status = GPUBENCH_OK;
        std::string message;
        double seconds = 0;
    };
    const Prepared &prepare_once(const Plugin &plugin, int cpu_threads);
    // The clock of an entry on `devices`: the host's, one device's CUDA timer, or (ABI 1.5) a
    // timer across several, kept while entries need the same devices. Throws when not made.
    PhaseTimer &timer_for(const Plugin &plugin, const std::vector<int> &devices);

    std::map<const gpubench_plugin *, Prepared> prepared_;
    SteadyClockTimer host_timer_;
    std::unique_ptr<PhaseTimer> cuda_timer_;
    std::unique_ptr<PhaseTimer> multi_device_timer_;
    std::string cuda_unavailable_;  // why cuda_timer_ could not be made
    std::string lost_;              // the sticky error that ended the CUDA context
    // Plugins whose stream hold was broken by its watchdog, with why (run_hold.hpp).
    std::map<const gpubench_plugin *, std::string> unheld_;
};

}  // namespace gpubench
