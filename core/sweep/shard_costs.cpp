#include "shard_costs.hpp"

#include "results_model.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <system_error>

namespace gpubench {

namespace {

// The known costs, and each unknown one the median of the known (1 when none is known).
std::vector<double> median_for_unknown(const std::vector<std::optional<double>> &found) {
    std::vector<double> known;
    for (const auto &cost : found)
        if (cost) known.push_back(*cost);
    std::ranges::sort(known);
    const double fill = known.empty() ? 1.0 : known[known.size() / 2];
    std::vector<double> costs;
    for (const auto &cost : found) costs.push_back(cost.value_or(fill));
    return costs;
}

}  // namespace

EntryCosts costs_from_work(const SweepEntries &entries, const std::vector<WorkAnswer> &answers,
                           const MeasureOptions &options) {
    if (answers.size() != entries.size()) throw std::logic_error("costs_from_work: one answer per entry");
    EntryCosts costs{{}, "declared work at nominal rates, workloads spread over the shards", {}, {}, {}};
    std::vector<std::optional<double>> found;
    size_t unknown = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
        const PluginInfo &plugin = *entries[i].plugin;
        costs.start_costs.emplace(plugin.name, nominal_start_cost(plugin).seconds);
        costs.groups.emplace(plugin.name, plugin.workload.empty() ? plugin.name : plugin.workload);
        const Work *work = std::get_if<Work>(&answers[i]);
        if (!entries[i].out_of_range.empty())
            found.push_back(nominal_skipped_entry_s());
        else
            found.push_back(work ? std::optional(nominal_entry_s(*work, plugin, options)) : std::nullopt);
        unknown += !found.back();
    }
    costs.costs = median_for_unknown(found);
    if (unknown)
        costs.source += ", unknown for " + std::to_string(unknown) + " of " + std::to_string(entries.size()) +
                        " entries (costed as the median)";
    return costs;
}

EntryCosts costs_from_declared_work(const SweepEntries &entries,
                                    const MeasureOptions &options, const std::filesystem::path &runner,
                                    double timeout_s) {
    std::vector<std::string> notes;
    // As on one device: a shard's devices are its machine's (--devices), and plans must agree.
    EntryCosts costs = costs_from_work(entries, ask_declared_work(entries, 1, runner, timeout_s, &notes), options);
    costs.notes = std::move(notes);
    return costs;
}

RecordedCosts recorded_costs_of(const ResultsDocument &earlier) {
    RecordedCosts recorded;
    const std::vector<RecordedCost> costs = recorded_costs(earlier);
    for (size_t i = 0; i < costs.size(); ++i) {
        const EntryResult &entry = earlier.entries[i];
        recorded.entry_s.emplace(entry.identity().any_seed(), costs[i].entry_s);
        if (costs[i].start_s) recorded.start_s.emplace(entry.plugin, *costs[i].start_s);
    }
    return recorded;
}

std::optional<std::pair<std::filesystem::path, RecordedCosts>>
recorded_on_host(const std::filesystem::path &folder, const std::string &host, const SweepEntries &entries) {
    std::vector<std::filesystem::path> named;
    std::error_code error;
    for (std::filesystem::directory_iterator item(folder, error), end; !error && item != end; item.increment(error))
        if (const std::string name = item->path().filename().string();
            name.starts_with(host + "-") && name.ends_with(".json"))
            named.push_back(item->path());
    std::ranges::sort(named, std::greater<>());  // the newest first: the names end in their time
    for (const std::filesystem::path &file : named) try {
            const nlohmann::json document = read_results_json(file);
            if (document.contains("shard")) continue;
            const ResultsDocument earlier = typed_results_document(document, file.string());
            RecordedCosts recorded = recorded_costs_of(earlier);
            if (earlier.header.host_name == host && std::ranges::all_of(entries, [&](const SweepEntry &entry) {
                    return recorded.entry_s.count(entry.identity()) > 0;
                }))
                return std::pair(file, std::move(recorded));
        } catch (const std::exception &) {  // unreadable, or still being written: passed over
        }
    return std::nullopt;
}

EntryCosts costs_from_recorded(const SweepEntries &entries, const RecordedCosts &recorded, const std::string &source,
                               const std::function<EntryCosts(const SweepEntries &)> &predict) {
    EntryCosts costs{std::vector<double>(entries.size(), 0.0), source, {}, {}, {}};
    SweepEntries missing;
    std::vector<size_t> missing_at;
    for (size_t i = 0; i < entries.size(); ++i) {
        const std::string &plugin = entries[i].plugin->name;
        if (!costs.start_costs.count(plugin))
            costs.start_costs[plugin] = recorded.start_s.contains(plugin) ? recorded.start_s.at(plugin)
                                                                          : nominal_start_cost(*entries[i].plugin).seconds;
        if (const auto found = recorded.entry_s.find(entries[i].identity()); found != recorded.entry_s.end())
            costs.costs[i] = found->second;
        else
            missing.push_back(entries[i]), missing_at.push_back(i);
    }
    if (missing.empty()) return costs;
    EntryCosts predicted = predict(missing);
    for (size_t k = 0; k < missing.size(); ++k) costs.costs[missing_at[k]] = predicted.costs.at(k);
    costs.notes = std::move(predicted.notes);
    costs.source += ", " + std::to_string(missing.size()) + " of " + std::to_string(entries.size()) +
                    " entries predicted from declared work (not recorded there)";
    return costs;
}

}  // namespace gpubench
