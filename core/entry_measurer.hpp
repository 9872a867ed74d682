// Measuring entries in this process: the one place that picks the clock for a plugin (CUDA
// events on a stream created once per process for CUDA plugins; the host clock, with the
// host's measured roofline, for CPU plugins) and notes a lost CUDA context. Used by the
// worker process and by --in-process alike.
#pragma once

#include "measure.hpp"
#include "plugin_library.hpp"
#include "roofline.hpp"

#include <memory>
#include <string>

namespace gpubench {

class EntryMeasurer {
public:
    explicit EntryMeasurer(Roofline host_roofline);
    ~EntryMeasurer();
    // Creates what `plugin` needs now (a CUDA context for a CUDA plugin), so that the first
    // entry does not pay for it; "" when ready, else why CUDA entries cannot run here.
    std::string prepare(const Plugin &plugin, int cuda_device);
    // Never throws: every failure is the entry's status. After an entry lost the CUDA
    // context, CUDA entries are skipped with the reason (the process cannot recover it).
    EntryResult measure(const Plugin &plugin, uint64_t size, const MeasureOptions &options,
                        const StageObserver &observe = {});
    bool cuda_context_lost() const { return !lost_.empty(); }
    void set_host_roofline(Roofline roofline) { host_timer_.set_roofline(std::move(roofline)); }

private:
    SteadyClockTimer host_timer_;
    std::unique_ptr<PhaseTimer> cuda_timer_;
    std::string cuda_unavailable_;  // why cuda_timer_ could not be made
    std::string lost_;              // the sticky error that ended the CUDA context
};

}  // namespace gpubench
