// One plugin instance behind the C boundary: each call checked, its status turned into a
// PluginFailure with the plugin's message, and destroy() run whatever happens. Each call is
// an NVTX range named after the entry and the phase ("vecadd_cuda 1e+08 run", nvtx_range.hpp);
// a timed one's range begins before its timer starts and ends after it stops.
#pragma once

#include "nvtx_range.hpp"
#include "phase_timer.hpp"

#include <gpubench/plugin.h>
#include <gpubench/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

// A plugin call that did not return GPUBENCH_OK: its status and "<phase>: <message>".
struct PluginFailure {
    gpubench_status status;
    std::string message;
};

class Instance {
public:
    // create(); `label` names the entry in the NVTX ranges (nvtx_entry_label; "": none).
    Instance(const gpubench_plugin &api, const gpubench_setup_args &args, std::string label);
    ~Instance();                                                            // destroy()
    Instance(const Instance &) = delete;
    Instance &operator=(const Instance &) = delete;

    // Calls an optional phase (upload/reset/download); false when the plugin has none.
    bool call(const char *phase, gpubench_phase_fn fn);
    // Times an optional phase with `timer`; returns -1 when the plugin has none. `host_s`, when
    // given, gets the seconds of the call itself on the host (for a device clock: enqueueing).
    double timed(const char *phase, gpubench_phase_fn fn, PhaseTimer &timer,
                 double *host_s = nullptr);
    // While on, the NVTX ranges of the calls say they are the warm-up's.
    void set_warm_up(bool on) { ranges_.set_warm_up(on); }
    Verification verify();
    std::vector<Metric> metrics(decltype(gpubench_plugin::metrics) fn);  // {} when fn is null

    // Seconds spent in the plugin's calls (and, for timed ones, waiting for their device
    // work) since create() began: what the harness cannot make cheaper.
    double plugin_time_s() const { return plugin_time_s_; }
    void add_plugin_time(double seconds) { plugin_time_s_ += seconds; }

private:
    void invoke(const char *phase, gpubench_phase_fn fn);  // the call itself, checked and timed
    const gpubench_plugin &api_;
    EntryRanges ranges_;
    gpubench_instance *handle_ = nullptr;
    double plugin_time_s_ = 0;
};

// The plugin's work() for (size, params) on `devices` devices (gpubench_work.devices, ABI 1.5),
// measured together by `ranks` processes (gpubench_work.ranks, ABI 1.7).
Work query_work(const gpubench_plugin &api, uint64_t size, const std::string &params,
                int devices = 1, int ranks = 1);

}  // namespace gpubench
