// Writing a sweep's results: the results file's name and header, opened (or, with --resume,
// reopened) before the first entry runs.
#pragma once

#include "cli.hpp"
#include "gpu.hpp"
#include "idle_power.hpp"
#include "results.hpp"
#include "roofline.hpp"
#include "sweep_plan.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct SweepResults {
    std::string output;  // the file's path
    std::unique_ptr<ResultsFile> file;
};

// The results file of this sweep: the plan's output (--output, the --resume file), or results/<host>-<timestamp>
// (.json, -2.json... when another runner holds the name), its header with the devices' energy
// sources and idle powers (`energy`). Throws CommandFailure when it cannot be written or resumed.
SweepResults open_sweep_results(const CommandLine &cli, const SweepPlan &plan, const PlannedEntries &planned,
                                const std::vector<GpuInfo> &gpus, const std::optional<Roofline> &host_roofline,
                                const SweepEnergy &energy, const std::vector<std::string> &command_line);

// The results file's "options": what its entries were measured with, and how the sweep ran:
// the plan's MeasureOptions (without an entry's rendezvous, and without the world of a run
// alone), then the sweep's own: time-out, isolation, sanitizer, parameter axes, budget and
// whether it is the default sweep. Each key is a row of the option table (runner_options.hpp).
nlohmann::json recorded_options(const CommandLine &cli, const SweepPlan &plan);

// The folder the results file goes in (where ranks launched together meet by default).
std::filesystem::path results_folder(const SweepPlan &plan);

}  // namespace gpubench
