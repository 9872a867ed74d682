#include "shard_costs.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace gpubench {

namespace {

double recorded_cost(const RecordedEntry &entry) {
    if (entry.entry_wall_s) return *entry.entry_wall_s;
    if (entry.timing)
        return entry.timing->run.median * double(entry.timing->run.count) + entry.timing->first_run;
    return 0;
}

// The known costs, and each unknown one the median of the known (1 when none is known).
std::vector<double> median_for_unknown(const std::vector<std::optional<double>> &found) {
    std::vector<double> known;
    for (const auto &cost : found)
        if (cost) known.push_back(*cost);
    double fill = 1;
    if (!known.empty()) {
        std::sort(known.begin(), known.end());
        fill = known[known.size() / 2];
    }
    std::vector<double> costs;
    for (const auto &cost : found) costs.push_back(cost.value_or(fill));
    return costs;
}

// Each entry's declared work, one query per plugin and setting of its sizes within its range (a
// size outside is skipped at once: no work); a note for each whose work could not be read.
std::vector<WorkAnswer> ask_declared_work(const SweepEntries &entries, const std::filesystem::path &runner,
                                          double timeout_s, std::vector<std::string> &notes) {
    std::vector<WorkQuery> queries;
    std::vector<const PluginInfo *> queried;
    std::map<std::pair<const PluginInfo *, std::string>, size_t> query_of;  // by plugin, params
    std::vector<std::optional<size_t>> asked_in(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
        const auto &[plugin, size, params, out_of_range] = entries[i];
        if (!out_of_range.empty()) continue;
        const auto [found, fresh] = query_of.emplace(std::pair(plugin, params), queries.size());
        if (fresh) {
            // As on one device: the devices a shard runs on are its machine's (--devices), and
            // every shard must compute the same plan.
            queries.push_back({plugin->file, params, 1, {}});
            queried.push_back(plugin);
        }
        queries[found->second].sizes.push_back(size);
        asked_in[i] = found->second;
    }
    const std::vector<std::vector<WorkAnswer>> replies = query_declared_work(queries, runner, timeout_s);
    for (size_t q = 0; q < queries.size(); ++q) {
        std::vector<const std::string *> reasons;
        for (const WorkAnswer &reply : replies[q])
            if (const auto *reason = std::get_if<std::string>(&reply)) reasons.push_back(reason);
        if (!reasons.empty())
            notes.push_back("cannot read the declared work of " + queried[q]->name +
                            (queries[q].params.empty() ? "" : " [" + queries[q].params + "]") + " at " +
                            std::to_string(reasons.size()) + " of " + std::to_string(replies[q].size()) +
                            " sizes (" + *reasons.front() + "): costed as the median");
    }
    std::vector<WorkAnswer> answers;
    std::vector<size_t> taken(queries.size(), 0);
    for (const std::optional<size_t> &query : asked_in)
        answers.push_back(query ? replies[*query][taken[*query]++] : WorkAnswer(Work{}));
    return answers;
}

}  // namespace

EntryCosts costs_from_results(const std::vector<EntryKey> &entries, const ResultsDocument &earlier,
                              const std::string &file_name) {
    std::map<std::string, double> recorded;  // by RecordedEntry::identity(); the first one wins
    StartCosts start_costs;
    for (const RecordedEntry &entry : earlier.entries) {
        double cost = recorded_cost(entry);
        if (const double load = entry.timing ? entry.timing->load : 0; load > 0 && entry.entry_wall_s &&
                                                                          !start_costs.count(entry.record.plugin)) {
            start_costs[entry.record.plugin] = load;
            cost = std::max(0.0, cost - load);
        }
        recorded.emplace(entry.identity(), cost);
    }
    std::vector<std::optional<double>> found;
    for (const EntryKey &key : entries) {
        const RecordedEntry as_recorded{
            .record = {.plugin = key.plugin, .size = key.size, .params = key.params}};
        const auto hit = recorded.find(as_recorded.identity());
        found.push_back(hit == recorded.end() ? std::nullopt : std::optional<double>(hit->second));
    }
    return {median_for_unknown(found), "from earlier results: " + file_name, {}, std::move(start_costs)};
}

EntryCosts costs_from_declared_work(const SweepEntries &entries,
                                    const MeasureOptions &options, const std::filesystem::path &runner,
                                    double timeout_s) {
    EntryCosts costs{{}, "declared work at nominal rates", {}, {}};
    for (const SweepEntry &entry : entries)
        costs.start_costs.emplace(entry.plugin->name, nominal_start_cost(*entry.plugin).seconds);
    const std::vector<WorkAnswer> answers = ask_declared_work(entries, runner, timeout_s, costs.notes);
    std::vector<std::optional<double>> found;
    size_t unknown = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
        const Work *work = std::get_if<Work>(&answers[i]);
        found.push_back(work ? std::optional(nominal_entry_s(*work, entries[i].plugin->device_kind, options))
                             : std::nullopt);
        unknown += !work;
    }
    costs.costs = median_for_unknown(found);
    if (unknown)
        costs.source += ", unknown for " + std::to_string(unknown) + " of " + std::to_string(entries.size()) +
                        " entries (costed as the median)";
    return costs;
}

}  // namespace gpubench
