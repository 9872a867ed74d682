// Measuring a sweep: `runner [options]` without --list. Plans it (sweep_plan.hpp), starts the
// first worker, opens the results file (sweep_results.hpp), prints the table as entries
// finish and the summary, and returns the exit status.
#pragma once

#include "cli.hpp"
#include "plugin_catalog.hpp"
#include "sweep_plan.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace gpubench {

// `started`: when the runner started (the summary's time). Throws CommandFailure for what
// stops the sweep before its first entry.
int measure_sweep(const CommandLine &cli, const SweepPlan &plan, PluginCatalog &catalog,
                  const std::vector<std::string> &command_line, std::chrono::steady_clock::time_point started);

}  // namespace gpubench
