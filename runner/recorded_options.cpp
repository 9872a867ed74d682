#include "recorded_options.hpp"

#include "host_share.hpp"
#include "results_model.hpp"

namespace gpubench {

nlohmann::json recorded_options(const CommandLine &cli, const SweepPlan &plan) {
    const bool default_sweep = plan.default_sweep;
    const double budget_s = plan.budget_s;
    nlohmann::json options = plan.measure;
    options.erase("rendezvous");  // each entry's own, set as it is measured
    if (!plan.measure.world.together()) options.erase("world");
    else if (plan.rank_share) options["world"]["host_share"] = *plan.rank_share;
    options["timeout_s"] = cli.timeout_s;
    options["isolation"] = cli.in_process           ? "in-process"
                           : !cli.sanitize.empty()    ? "worker process per entry (sanitized)"
                           : cli.worker_per_entry     ? "worker process per entry"
                                                      : "worker process per plugin";
    if (!cli.sanitize.empty()) options["sanitize"] = cli.sanitize;
    if (!cli.param_axes.empty()) options["param_axes"] = param_axes_json(cli.param_axes);
    if (budget_s > 0) options["budget_s"] = budget_s;
    if (default_sweep)
        options["default_sweep"] = "at most 1 s of samples per entry unless --max-time, cut to fit the budget "
                                   "(budget_s) unless --budget; sizes predicted to run over 2 s per run() "
                                   "skipped; every GPU unless --device or --devices";
    return options;
}


}  // namespace gpubench
