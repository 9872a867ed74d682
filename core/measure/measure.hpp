// Measuring one (plugin, size) entry: setup, warm-up, timed samples, verification, teardown.
// The same procedure for every plugin; only the clock differs (see PhaseTimer).
#pragma once

#include "measurement.hpp"
#include "phase_timer.hpp"
#include "plugin_library.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

// The bytes an entry's runs keep in play: what an instance holds (work.device_bytes on a GPU,
// work.host_bytes on the host) where declared, else what one run moves (work.bytes); the
// smaller of the two where both are. A run may move its data many times (solvebak's
// iterations, logreg's steps): those bytes come from wherever the data fits, not from a level
// as large as their sum.
double working_set_bytes(const Work &work, bool on_gpu);
// Holds the entry's bandwidth to the level of `roofline` its working set fits in (the
// memory's where the caches were flushed before each run), or, for bytes declared as crossing
// the interconnect (GPUBENCH_WORK_BYTES_INTERCONNECT), to the interconnect's peak:
// its ceiling's bytes_per_s, level, level_margin and level_source.
void hold_to_level(Measurement &entry, const Roofline &roofline, bool caches_flushed);

// An entry skipped before anything ran, with the reason (no GPU, over a budget...).
Measurement skipped_entry(const PluginInfo &plugin, uint64_t size, std::string reason);

// The one-line reason `size` is outside the plugin's declared range, or "". A sweep asks once
// per entry, as it plans it (SweepEntry).
std::string size_range_problem(const PluginInfo &plugin, uint64_t size);

// The CUDA devices the run selected: cuda_device, then the others of cuda_devices in order.
std::vector<int> selected_cuda_devices(const MeasureOptions &options);
// The devices an entry of `plugin` runs on: as many of the selected ones as its max_devices
// allows (the first alone for a single-device plugin); none for a CPU plugin.
std::vector<int> entry_cuda_devices(const PluginInfo &plugin, const MeasureOptions &options);

// Measures `plugin` at `size`. Never throws: every failure becomes the entry's status.
Measurement measure_entry(const Plugin &plugin, uint64_t size, const MeasureOptions &options,
                          PhaseTimer &timer, const StageObserver &observe = {});

}  // namespace gpubench
