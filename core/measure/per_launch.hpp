// The headline of short GPU runs: one launch between two events includes the launch gap
// (~5 us on an H100), so runs under per_launch_below_s are also timed per launch, as a CUDA
// graph of run() calls replayed (about 1 us per launch), else called back to back; reset+run
// pairs minus resets alone where run() is not declared repeatable. An entry across ranks is
// timed so at every size, as nccl-tests times collectives: --min-samples batches of
// lockstep_launches calls (never a graph, whose capture could fail on one rank alone).
#pragma once

#include "measurement.hpp"
#include "plugin_instance.hpp"

namespace gpubench {

inline constexpr double per_launch_below_s = 100e-6;

// Fills result.timing.per_launch where the entry qualifies (a device timer and hot cache, and across
// ranks or a median run below per_launch_below_s). Ends with a run()'s state downloaded
// again, so that verification covers the launches timed here.
void time_per_launch(Instance &instance, const gpubench_plugin &api,
                     const MeasureOptions &options, PhaseTimer &timer, Measurement &result);

}  // namespace gpubench
