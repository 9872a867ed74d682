// The entries of a sweep with --devices lanes that take every GPU at once (a plugin across
// several GPUs, such as an all-reduce). While one runs, every lane waits, so they run after
// the lanes are done, and a budgeted sweep plans them with their whole cost: a size predicted
// to take longer than every_gpu_entry_limit_s (its set-up, CPU reference and verification of
// the host bytes it declares, warm-up and sampling, at entry_cost.hpp's nominal rates) is
// skipped with the prediction before any worker starts; once the lanes are done, a size
// predicted to take more than what is left of the budget is skipped with it (a one-GPU sweep
// has no such entries: they take only the time the lanes saved); and a larger size whose
// set-up and checks, scaled from the size before it, would take longer is skipped by its
// worker.
#pragma once

#include "measure.hpp"
#include "sweep.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace gpubench {

// What one such entry may take of a budget of `budget_s`: it keeps every lane idle meanwhile.
double every_gpu_entry_limit_s(double budget_s);

struct EveryGpuPlan {
    SweepEntries measured;            // to run, after the lanes
    std::vector<double> predicted_s;  // each one's whole cost predicted, its plugin's start in
                                      // the first of its plugin's (0: unknown)
    std::vector<std::pair<SweepEntry, std::string>> skipped;  // with why
};

// `entries` (their plugins' entries on `gpus` GPUs), predicted from their declared work, which
// a helper process asks of each plugin (work_query.hpp) within `timeout_s`; with `budget_s` 0,
// every entry is measured and none is predicted. An entry whose work cannot be read is
// measured (its worker still skips it when scaled from the size before it is over the limit).
EveryGpuPlan plan_every_gpu_entries(const SweepEntries &entries, const MeasureOptions &options, int gpus,
                                    double budget_s, const std::filesystem::path &runner, double timeout_s);

}  // namespace gpubench
