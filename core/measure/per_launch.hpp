// The headline of short GPU runs: one launch between two events includes the launch gap
// (~5 us on an H100), so runs under per_launch_below_s are also timed per launch. run() is
// captured into a CUDA graph and replayed (about 1 us per launch); where capture fails it is
// called back to back instead. A plugin with reset() whose run() is not declared repeatable
// is timed as reset+run pairs minus resets alone. An entry measured across ranks is timed per
// launch at every size, in batches of lockstep_launches calls (never a graph, whose capture
// could fail on one rank and not another), --min-samples of them: as nccl-tests times its
// collectives, and alike on every rank.
#pragma once

#include "measurement.hpp"
#include "plugin_instance.hpp"

namespace gpubench {

inline constexpr double per_launch_below_s = 100e-6;

// Fills result.per_launch when the entry qualifies (a device timer, hot cache, median single
// run below per_launch_below_s, or measured across ranks); leaves it empty otherwise. Ends with the state of a run()
// downloaded again, so that verification covers the launches timed here.
void time_per_launch(Instance &instance, const gpubench_plugin &api,
                     const MeasureOptions &options, PhaseTimer &timer, Measurement &result);

}  // namespace gpubench
