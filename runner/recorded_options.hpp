// The results file's "options": what its entries were measured with, and how the sweep ran.
// Each key is a row of the option table (runner_options.hpp), which says what it means.
#pragma once

#include "cli.hpp"
#include "sweep_plan.hpp"

#include <nlohmann/json.hpp>

namespace gpubench {

// The plan's MeasureOptions (without an entry's rendezvous, and without the world of a run
// alone), then the sweep's own: time-out, isolation, sanitizer, parameter axes, budget and
// whether it is the default sweep.
nlohmann::json recorded_options(const CommandLine &cli, const SweepPlan &plan);

}  // namespace gpubench
