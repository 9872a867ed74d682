#include "sweep_results.hpp"

#include "host_share.hpp"
#include "results_model.hpp"
#include "system_info.hpp"

#include <filesystem>
#include <stdexcept>

namespace gpubench {

namespace {

constexpr const char *default_results_folder = "results/";

// The results file's header: the command line, the build, the GPU (each GPU with several),
// the options, the host's roofline, the energy sources, and a shard's record.
nlohmann::json results_document(const CommandLine &cli, const SweepPlan &plan, const PlannedEntries &planned,
                                const std::vector<GpuInfo> &gpus, const std::optional<Roofline> &host_roofline,
                                const SweepEnergy &energy, const std::vector<std::string> &command_line) {
    nlohmann::json document = results_header(command_line, gpus.front(), recorded_options(cli, plan), host_roofline);
    document["energy"] = energy;
    if (planned.shard) {
        document["shard"] = *planned.shard;
        if (plan.rank_share) document["shard"]["host_share"] = *plan.rank_share;
    }
    if (!plan.measure.cuda_devices.empty())  // `gpus` is never empty
        for (const GpuInfo &each : gpus) document["gpus"].push_back(gpu_json(each));
    return document;
}

// The default results file, stem.json, or stem-2.json, stem-3.json... when runners started
// in the same second on one host (a CI matrix, ctest -j) hold the earlier names. `output`
// names the file tried last (for an error message).
std::unique_ptr<ResultsFile> open_default_results(const std::string &stem, const nlohmann::json &document,
                                                  std::string &output) {
    namespace fs = std::filesystem;
    for (int copy = 1; copy <= 100; ++copy) {
        output = copy == 1 ? stem + ".json" : stem + "-" + std::to_string(copy) + ".json";
        if (fs::exists(output) || fs::exists(output + ".lock")) continue;
        try {
            return std::make_unique<ResultsFile>(output, document);
        } catch (const std::exception &) {
            if (!fs::exists(output + ".lock")) throw;  // not another runner's race: a real error
        }
    }
    throw std::runtime_error("the default names are all taken: name one with --output");
}

}  // namespace

nlohmann::json recorded_options(const CommandLine &cli, const SweepPlan &plan) {
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
    if (plan.budget_s > 0) options["budget_s"] = plan.budget_s;
    if (cli.find_crossover) options["find_crossover"] = true;
    if (plan.default_sweep)
        options["default_sweep"] = "at most 1 s of samples per entry unless --max-time, cut to fit the budget "
                                   "(budget_s) unless --budget; sizes predicted to run over 2 s per run() "
                                   "skipped (4 s in a lane of several GPUs); every GPU unless --device or "
                                   "--devices";
    return options;
}

SweepResults open_sweep_results(const CommandLine &cli, const SweepPlan &plan, const PlannedEntries &planned,
                                const std::vector<GpuInfo> &gpus, const std::optional<Roofline> &host_roofline,
                                const SweepEnergy &energy, const std::vector<std::string> &command_line) {
    // Shards and ranks started together on one host (mpirun) get files of their own by default.
    const RankWorld &world = plan.measure.world;
    const std::string suffix =
        plan.shard ? "-shard-" + std::to_string(plan.shard->index) + "of" + std::to_string(plan.shard->count)
        : world.together() ? "-rank-" + std::to_string(world.rank) + "of" + std::to_string(world.ranks)
                           : "";
    const std::string default_stem = default_results_folder + host_name() + "-" + utc_timestamp(true) + suffix;
    const nlohmann::json document = results_document(cli, plan, planned, gpus, host_roofline, energy, command_line);
    SweepResults results;
    results.output = plan.output.empty() ? default_stem + ".json" : plan.output;
    // The --output file, or the default name, or the --resume file (its entries kept, this run's own header
    // fields added to its "resumed").
    try {
        if (plan.output.empty())
            results.file = open_default_results(default_stem, document, results.output);
        else if (plan.resume.empty())
            results.file = std::make_unique<ResultsFile>(results.output, document);
        else
            results.file = std::make_unique<ResultsFile>(ResultsFile::resume(
                plan.resume, results.output,
                {{"created", document["created"]},
                 {"command_line", document["command_line"]},
                 {"options", document["options"]},
                 {"energy", document["energy"]}}));
    } catch (const std::exception &e) {
        throw CommandFailure{plan.resume.empty() ? "cannot write results file '" + results.output + "': " + e.what()
                                                : "cannot resume: " + std::string(e.what())};
    }
    return results;
}

std::filesystem::path results_folder(const SweepPlan &plan) {
    return plan.output.empty() ? std::filesystem::path(default_results_folder)
                               : std::filesystem::path(plan.output).parent_path();
}

}  // namespace gpubench
