#include "sharding.hpp"

#include "child_process.hpp"
#include "history_store.hpp"
#include "host_resources.hpp"
#include "plugin_catalog.hpp"
#include "results_model.hpp"
#include "shard_costs.hpp"
#include "text_format.hpp"

#include <cctype>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <stdexcept>

namespace gpubench {

namespace {

// The --param axes a results file's options record: param_axes, or, in a file written before
// value lists, its params (one value per key).
nlohmann::json recorded_param_axes(const nlohmann::json &options) {
    if (options.contains("param_axes")) return options["param_axes"];
    ParamAxes axes;
    for (const std::string &item : split_list(options.value("params", ""))) {
        const size_t eq = item.find('=');
        axes.push_back({item.substr(0, eq), {eq == std::string::npos ? "" : item.substr(eq + 1)}});
    }
    return param_axes_json(axes);
}

// Axes as the command line gives them: "--param a=1,2 --param b=x", or "no --param".
std::string param_axes_text(const nlohmann::json &axes) {
    std::string text;
    for (const auto &[key, values] : axes.items())
        text += (text.empty() ? "--param " : " --param ") + key + "=" +
                join(values.get<std::vector<std::string>>(), ",");
    return text.empty() ? "no --param" : text;
}

std::string shard_text(uint32_t index, uint32_t count) {
    return std::to_string(index) + "/" + std::to_string(count);
}

// What a --shard-costs file holds, told by its first bytes: an SQLite database (a history),
// JSON (a results file), or neither. A file that cannot be read is left to the results reader,
// which says why.
enum class CostsFile { history, results, neither };
CostsFile costs_file_kind(const std::string &file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return CostsFile::results;
    char head[16] = {};
    in.read(head, sizeof head);
    if (in.gcount() == sizeof head && std::string(head, sizeof head) == std::string("SQLite format 3\0", 16))
        return CostsFile::history;
    for (std::streamsize i = 0; i < in.gcount(); ++i)
        if (!std::isspace(static_cast<unsigned char>(head[i]))) return head[i] == '{' ? CostsFile::results : CostsFile::neither;
    return CostsFile::results;  // empty, or blank so far: the reader says so
}

// --shard-costs FILE's recorded costs, and how the shard record names them.
RecordedCosts read_recorded_costs(const std::string &file, std::string &source) {
    switch (costs_file_kind(file)) {
    case CostsFile::history:
        source = "from the history: " + file;
        return history_wall_times(file);
    case CostsFile::results:
        source = "from earlier results: " + file;
        return recorded_costs_of(read_results_file(file));
    case CostsFile::neither:
        break;
    }
    throw std::runtime_error(file + " is neither a results file (JSON) nor a history database (SQLite)");
}

}  // namespace

std::optional<ResumedPlan> resumed_plan(const std::string &file, const std::optional<ShardSpec> &asked,
                                        const CommandLine &cli) {
    const nlohmann::json document = read_results_json(file);
    const std::optional<ShardRecord> shard = shard_record(document);
    const bool merged = document.contains("merged");
    const bool own_sweep = !cli.plugin_patterns.empty() || cli.sizes;
    if (asked && !shard)
        throw std::runtime_error(file + (merged ? " is a merged file, resumed whole: drop --shard"
                                                : " is not a shard's file: drop --shard"));
    if (shard && asked && (asked->index != shard->index || asked->count != shard->count))
        throw std::runtime_error(file + " is shard " + shard_text(shard->index, shard->count) +
                                 ", not " + shard_text(asked->index, asked->count));
    if (shard && !asked && own_sweep)
        throw std::runtime_error(file + " is shard " + shard_text(shard->index, shard->count) +
                                 ": with --plugin or --sizes, give its --shard too");
    if (own_sweep) return std::nullopt;
    std::optional<std::vector<EntryIdentity>> planned = planned_entries(document);
    if (!planned) return std::nullopt;
    // Entries are the same measurement only with the same params and seed (find_entry).
    for (const EntryIdentity &key : *planned)
        if (key.seed != cli.measure.seed)
            throw std::runtime_error(file + " planned its entries with --seed " +
                                     std::to_string(key.seed.value_or(0)) + ": resume it with the same (this run has --seed " +
                                     std::to_string(cli.measure.seed) + ")");
    const nlohmann::json recorded = recorded_param_axes(document.at("options"));
    if (const nlohmann::json given = param_axes_json(cli.param_axes); recorded != given)
        throw std::runtime_error(file + " planned its entries with " + param_axes_text(recorded) +
                                 ": resume it with the same (this run has " + param_axes_text(given) + ")");
    return ResumedPlan{std::move(*planned), document.at("options").contains("default_sweep"),
                       shard ? nlohmann::json(shard->planned) : nlohmann::json()};
}

std::vector<std::string> plugin_names(const std::vector<EntryIdentity> &entries) {
    std::vector<std::string> names;
    std::set<std::string> seen;
    for (const EntryIdentity &key : entries)
        if (seen.insert(key.plugin).second) names.push_back(key.plugin);
    return names;
}

SweepEntries entries_with_plugins(const std::vector<const PluginInfo *> &plugins,
                                  const std::vector<EntryIdentity> &entries) {
    std::map<std::string, const PluginInfo *> by_name;
    for (const PluginInfo *plugin : plugins) by_name.emplace(plugin->name, plugin);
    SweepEntries sweep;
    for (const EntryIdentity &key : entries) {
        const auto found = by_name.find(key.plugin);
        if (found == by_name.end()) throw std::runtime_error("plugin " + key.plugin + " was not found");
        sweep.push_back({found->second, key.size, key.params});
    }
    return sweep;
}

ShardedSweep shard_sweep(const SweepEntries &entries, const ShardSpec &shard, const std::string &costs_file,
                         const MeasureOptions &options, const std::filesystem::path &runner, double scan_timeout_s) {
    std::vector<EntryIdentity> keys;
    for (const SweepEntry &entry : entries) keys.push_back(entry.identity(options.seed));
    const auto predict = [&](const SweepEntries &these) {
        return costs_from_declared_work(these, options, runner, scan_timeout_s);
    };
    EntryCosts costs;
    if (costs_file.empty()) {
        costs = predict(entries);
    } else {
        RecordedCosts recorded;
        std::string source;
        try {
            recorded = read_recorded_costs(costs_file, source);
        } catch (const std::exception &e) {
            throw std::runtime_error("--shard-costs: " + std::string(e.what()));
        }
        costs = costs_from_recorded(entries, recorded, source, predict);
    }
    ShardRecord record{shard.index, shard.count, shard.source, costs.source, costs.start_costs,
                       plan_shards(keys, costs.costs, shard.count, costs.start_costs, costs.groups)};
    record.predicted_s = planned_shard_s(record.planned, record.index, record.count, record.start_costs);
    ShardedSweep sharded;
    for (size_t i = 0; i < entries.size(); ++i)
        if (record.planned[i].shard == record.index) sharded.own.push_back(entries[i]);
    sharded.record = std::move(record);
    sharded.notes = std::move(costs.notes);
    return sharded;
}

void record_shard_wall_time(ResultsFile &results, double seconds) {
    const nlohmann::json &document = results.document();
    if (!document.contains("shard")) return;
    const double before = document["shard"].value("actual_s", 0.0);
    results.set_field(nlohmann::json::json_pointer("/shard/actual_s"), before + seconds);
}

std::unique_ptr<ShardBarrier> start_shard_barrier(const ShardSpec &shard, const nlohmann::json &planned,
                                                  const std::filesystem::path &results_file,
                                                  const EnvironmentLookup &environment, std::ostream &warnings,
                                                  const std::string &kind) {
    if (!shard.launched_ranks || shard.count < 2) return nullptr;
    std::string problem;
    const BarrierTimes times = shard_barrier_times(environment, problem);
    if (!problem.empty()) warnings << "runner: warning: " << problem << '\n';
    const std::string job = launcher_job_identity(environment);
    ShardBarrier::Place place{shard_barrier_folder(results_file, shard_barrier_id(job, shard.count, planned)),
                              shard.index, shard.count, job.empty(), kind};
    return std::make_unique<ShardBarrier>(std::move(place), times, warnings);
}

std::optional<HostShare> local_rank_share(const EnvironmentLookup &environment) {
    for (const auto &[rank_name, size_name] :
         {std::pair{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
          {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
          {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"}}) {
        const std::optional<std::string> rank_text = environment(rank_name), size_text = environment(size_name);
        int rank = 0, size = 0;
        if (!rank_text || !size_text || !parse_small_int(rank_text->c_str(), rank) ||
            !parse_small_int(size_text->c_str(), size))
            continue;
        const std::vector<int> allowed = allowed_cpus();
        if (size < 2 || rank < 0 || rank >= size || allowed.size() < logical_cores()) return std::nullopt;
        HostShare share = split_host_cpus(allowed, physical_cores(allowed), {}, size_t(size)).at(size_t(rank));
        share.basis = "local rank " + std::to_string(rank) + " of " + std::to_string(size) + " (" + rank_name +
                      "): " + share.basis;
        return share;
    }
    return std::nullopt;
}

}  // namespace gpubench
