#include "crossover_search.hpp"

#include "refine.hpp"
#include "results_model.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

namespace gpubench {

std::vector<WorkloadReport> report_so_far(const ResultsFile &results, const std::string &output) {
    return build_report({{"", results_document(results.document(), output)}}, {});
}

SweepEntries next_crossover_round(const std::vector<WorkloadReport> &reports, const SweepEntries &planned) {
    SweepEntries round;
    for (const WorkloadReport &r : reports) {
        std::set<uint64_t> sizes;
        for (const ColumnAnswer &a : r.answers)
            for (Compared compared : {Compared::compute, Compared::end_to_end})
                for (uint64_t size : sizes_to_refine(a.of(compared), r.sizes)) sizes.insert(size);
        std::set<std::string> plugins;  // each plugin once, however many of its entries were planned
        for (const SweepEntry &entry : planned) {
            if (entry.plugin->workload != r.workload || entry.params != r.params) continue;
            if (!plugins.insert(entry.plugin->name).second) continue;
            for (uint64_t size : sizes)
                if (SweepEntry added(entry.plugin, size, entry.params); added.out_of_range.empty())
                    round.push_back(std::move(added));
        }
    }
    return round;
}

namespace {

// "sort at 5200, 7300" per workload of the round.
std::string round_text(const SweepEntries &round) {
    std::map<std::string, std::set<uint64_t>> sizes;
    for (const SweepEntry &e : round)
        sizes[e.plugin->workload + (e.params.empty() ? "" : " [" + e.params + "]")].insert(e.size);
    std::vector<std::string> parts;
    for (const auto &[workload, at] : sizes) {
        std::vector<std::string> texts;
        for (uint64_t size : at) texts.push_back(format_size(size));
        parts.push_back(workload + " at " + join(texts, ", "));
    }
    return join(parts, "; ");
}

}  // namespace

SweepTally search_crossovers(const SweepEntries &planned, const MeasureOptions &options,
                             const std::vector<GpuInfo> &gpus, ResultsFile &results, WorkerPool &pool,
                             const SweepSetup &setup, SweepObserver &observer, std::ostream &out) {
    SweepTally tally;
    for (size_t round = 1; round <= max_crossover_rounds; ++round) {
        const SweepEntries entries = next_crossover_round(report_so_far(results, results.path().string()), planned);
        const double elapsed_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - setup.started).count();
        if (entries.empty() || (setup.budget_s > 0 && elapsed_s >= setup.budget_s)) break;
        out << "\n--find-crossover, round " << round << ": " << round_text(entries) << '\n';
        const SweepTally more = run_sweep(entries, options, gpus, results, pool, setup, observer);
        tally.ok += more.ok, tally.verification_failed += more.verification_failed;
        tally.errors += more.errors, tally.skipped += more.skipped, tally.resumed += more.resumed;
        if ((tally.interrupted = more.interrupted)) break;
    }
    return tally;
}

void print_answers(std::ostream &out, const std::vector<WorkloadReport> &reports) {
    std::string lines;
    for (const WorkloadReport &r : reports)
        if (const std::string line = answer_line(r); !line.empty()) lines += "  " + line + '\n';
    if (!lines.empty()) out << "\nThe answer (95% intervals for a repeat run; runner report shows how it was found):\n" << lines;
}

void record_answers(ResultsFile &results, const std::vector<WorkloadReport> &reports) {
    nlohmann::json answers = nlohmann::json::array();
    for (const WorkloadReport &r : reports) {
        nlohmann::json each = answers_json(r);
        each["workload"] = r.workload, each["params"] = r.params;
        answers.push_back(std::move(each));
    }
    results.set_field(nlohmann::json::json_pointer("/answers"), std::move(answers));
}

}  // namespace gpubench
