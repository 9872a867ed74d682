#include "sharding.hpp"

#include "history_store.hpp"
#include "plugin_catalog.hpp"
#include "results_model.hpp"
#include "shard_costs.hpp"
#include "sweep_plan.hpp"
#include "sweep_results.hpp"
#include "system_info.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string_view>

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

// --shard-costs FILE's source, as the shard record names it, and recorded costs: told by its
// first bytes, an SQLite database (a history), JSON (a results file; one that cannot be read,
// or is blank so far, is left to the results reader, which says why), or neither. Throws
// std::runtime_error, "--shard-costs: ...", when it cannot be read or is neither.
std::pair<std::string, RecordedCosts> read_recorded_costs(const std::string &file) try {
    std::ifstream in(file, std::ios::binary);
    char head[16] = {};
    in.read(head, sizeof head);
    if (in.gcount() == sizeof head && std::string(head, sizeof head) == std::string("SQLite format 3\0", 16))
        return {"from the history: " + file, history_wall_times(file)};
    const std::string_view read(head, static_cast<size_t>(in.gcount()));
    const size_t first = read.find_first_not_of(" \t\n\v\f\r");
    if (first != std::string_view::npos && read[first] != '{')
        throw std::runtime_error(file + " is neither a results file (JSON) nor a history database (SQLite)");
    return {"from earlier results: " + file, recorded_costs_of(read_results_file(file))};
} catch (const std::exception &e) {
    throw std::runtime_error("--shard-costs: " + std::string(e.what()));
}

// `entries` with their plugins among `plugins`, each with its planned params; throws
// std::runtime_error naming a plugin that is not among them.
SweepEntries entries_with_plugins(const std::vector<const PluginInfo *> &plugins,
                                  const std::vector<EntryIdentity> &entries) {
    SweepEntries sweep;
    for (const EntryIdentity &key : entries) {
        const auto found = std::ranges::find(plugins, key.plugin, &PluginInfo::name);
        if (found == plugins.end()) throw std::runtime_error("plugin " + key.plugin + " was not found");
        sweep.push_back({*found, key.size, key.params});
    }
    return sweep;
}

// This shard's part of `planned`'s entries, balanced by --shard-costs (the entries it lacks
// predicted), else, for ranks the launcher put on this one host, by the newest earlier sweep
// of this host beside the results that records them all (every rank finds the same), else by
// the plugins' declared work (each query within `scan_timeout_s`; what cannot be read noted).
// Throws std::runtime_error, one line, when --shard-costs is neither a results file nor a history.
void keep_own_shard(PlannedEntries &planned, const SweepPlan &plan, double scan_timeout_s) {
    const SweepEntries &entries = planned.entries;
    const ShardSpec &shard = *plan.shard;
    std::vector<EntryIdentity> keys;
    for (const SweepEntry &entry : entries) keys.push_back(entry.identity(plan.measure.seed));
    const auto predict = [&](const SweepEntries &these) {
        return costs_from_declared_work(these, plan.measure, plan.runner_file, scan_timeout_s);
    };
    std::optional<std::pair<std::string, RecordedCosts>> recorded;  // how the record names them, and they
    if (!plan.shard_costs.empty())
        recorded = read_recorded_costs(plan.shard_costs);
    else if (shard.launched_ranks && ranks_on_one_host(process_environment()))
        if (auto found = recorded_on_host(results_folder(plan), host_name(), entries))
            recorded.emplace("from earlier results on this host: " + found->first.string(), std::move(found->second));
    const EntryCosts costs =
        recorded ? costs_from_recorded(entries, recorded->second, recorded->first, predict) : predict(entries);
    ShardRecord record{shard.index, shard.count, shard.source, costs.source, costs.start_costs,
                       plan_shards(keys, costs.costs, shard.count, costs.start_costs, costs.groups)};
    record.predicted_s = planned_shard_s(record.planned, record.index, record.count, record.start_costs);
    for (const std::string &note : costs.notes) std::cout << "note: " << note << '\n';
    SweepEntries own;
    for (size_t i = 0; i < entries.size(); ++i)
        if (record.planned[i].shard == record.index) own.push_back(entries[i]);
    planned.entries = std::move(own);
    planned.shard = std::move(record);
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
    for (const EntryIdentity &key : entries)
        if (std::ranges::find(names, key.plugin) == names.end()) names.push_back(key.plugin);
    return names;
}

PlannedEntries plan_entries(const CommandLine &cli, const SweepPlan &plan,
                            const std::vector<const PluginInfo *> &plugins) {
    PlannedEntries planned;
    try {
        planned.entries = plan.resumed ? entries_with_plugins(plugins, plan.resumed->entries)
                                       : sweep_entries(plugins, cli.sizes, cli.param_axes);
        if (plan.budget_s > 0 && plan.measure.counters) count_series_ends_only(planned.entries);
        if (plan.shard && !plan.resumed) keep_own_shard(planned, plan, cli.scan_timeout_s);
    } catch (const std::exception &e) {
        throw CommandFailure{e.what()};
    }
    return planned;
}

}  // namespace gpubench
