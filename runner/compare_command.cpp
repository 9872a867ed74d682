#include "cli.hpp"
#include "compare.hpp"
#include "metric_format.hpp"
#include "results_model.hpp"
#include "subcommands.hpp"
#include "text_format.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <set>

namespace gpubench {

namespace po = boost::program_options;

namespace {

// --candidate-device: the candidate's entries that ran on `device`, and the baseline's
// entries of the same identity; an error when the candidate has none there.
void keep_entries_on_device(ResultsDocument &baseline, ResultsDocument &candidate, int device) {
    std::set<EntryIdentity> kept;  // in any seed, as compare_results matches them
    std::erase_if(candidate.entries,
                  [&](const EntryResult &e) { return e.cuda_devices.empty() || e.cuda_devices.front() != device; });
    for (const EntryResult &e : candidate.entries) kept.insert(e.identity().any_seed());
    if (kept.empty())
        throw std::invalid_argument("--candidate-device " + std::to_string(device) +
                                    ": the candidate has no entry measured on that device");
    std::erase_if(baseline.entries, [&](const EntryResult &e) { return !kept.count(e.identity().any_seed()); });
}

// The table of compared entries and the count of each verdict below it.
void print_comparison(const Comparison &comparison, const CompareOptions &options) {
    std::printf("| plugin | size | params | baseline | candidate | ratio | p-value | verdict |\n"
                "| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |\n");
    size_t slower = 0, faster = 0, same = 0, other = 0;
    for (const ComparedEntry &e : comparison.entries) {
        const bool timed = e.baseline_median > 0 && e.candidate_median > 0;
        const std::string ratio = timed ? format_text("%.3f", e.ratio) : "";
        const std::string p = timed ? format_text("%.3g", e.p_value) : "";
        std::printf("| %s | %s | %s | %s | %s | %s | %s | %s%s |\n", e.plugin.c_str(),
                    format_size(e.size).c_str(), e.params.c_str(),
                    timed ? format_seconds(e.baseline_median).c_str() : "",
                    timed ? format_seconds(e.candidate_median).c_str() : "", ratio.c_str(), p.c_str(),
                    to_string(e.verdict), e.note.empty() ? "" : (": " + e.note).c_str());
        switch (e.verdict) {
            case Verdict::slower: case Verdict::failed: ++slower; break;
            case Verdict::faster: ++faster; break;
            case Verdict::same: ++same; break;
            default: ++other; break;
        }
    }
    std::printf("\n%zu slower or failed, %zu faster, %zu same, %zu ambiguous or on one side only"
                " (threshold %.3g, alpha %.3g)\n",
                slower, faster, same, other, options.threshold, options.alpha);
}

// The metrics both sides of a pair have that moved beyond the threshold (worse, better, or
// either way for one of no direction), and how many did.
void print_metrics(const Comparison &comparison, const CompareOptions &options) {
    if (comparison.metrics.empty()) return;
    size_t worse = 0, better = 0, shown = 0;
    for (const ComparedMetric &m : comparison.metrics) {
        if (!metric_moved(m.baseline_value, m.candidate.value, options.threshold)) continue;
        if (!shown++)
            std::printf("\n| plugin | size | params | metric | baseline | candidate | change | verdict |\n"
                        "| --- | ---: | --- | --- | ---: | ---: | ---: | --- |\n");
        Metric before = m.candidate;
        before.value = m.baseline_value;
        const std::string change =
            m.baseline_value != 0
                ? format_text("%+.1f%%", 100 * (m.candidate.value - m.baseline_value) / std::fabs(m.baseline_value))
                : "";
        std::printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", m.plugin.c_str(), format_size(m.size).c_str(),
                    m.params.c_str(), metric_heading(m.candidate).c_str(), metric_value_text(before).c_str(),
                    metric_value_text(m.candidate).c_str(), change.c_str(), to_string(m.verdict));
        worse += m.verdict == MetricVerdict::worse;
        better += m.verdict == MetricVerdict::better;
    }
    std::printf("\n%zu metrics worse, %zu better, %zu moved in all, of %zu both sides have (the rest within "
                "the threshold)\n", worse, better, shown, comparison.metrics.size());
}

// Which entries each file verified, and which only one of them did: does the candidate
// (another machine, more GPUs, a later commit) measure everything the baseline measures?
void print_coverage(const ResultsDocument &baseline, const ResultsDocument &candidate) {
    const auto verified = [](const ResultsDocument &document) {
        std::set<std::pair<EntryIdentity, std::string>> ids;  // (identity in any seed, shown as)
        for (const EntryResult &e : document.entries)
            if (e.status == EntryStatus::ok)
                ids.insert({e.identity().any_seed(), e.plugin + " " + format_size(e.size) +
                                                         (e.settings.params.empty() ? "" : " " + e.settings.params)});
        return ids;
    };
    const auto base = verified(baseline), cand = verified(candidate);
    std::vector<std::pair<EntryIdentity, std::string>> only_base, only_cand;
    std::ranges::set_difference(base, cand, std::back_inserter(only_base));
    std::ranges::set_difference(cand, base, std::back_inserter(only_cand));
    std::printf("verified: %zu of the baseline's %zu entries, %zu of the candidate's %zu; in the baseline only: %zu, "
                "in the candidate only: %zu\n",
                base.size(), baseline.entries.size(), cand.size(), candidate.entries.size(), only_base.size(),
                only_cand.size());
    for (const auto &[label, names] : {std::pair{"baseline", &only_base}, std::pair{"candidate", &only_cand}})
        for (size_t i = 0; i < names->size() && i < 40; ++i)
            std::printf("  verified in the %s only: %s\n", label, (*names)[i].second.c_str());
}

}  // namespace

int compare_command(int argc, const char *const *argv) {
    std::vector<std::string> files;
    CompareOptions options;
    int candidate_device = -1;
    po::options_description described(
        "Usage: runner compare BASELINE.json CANDIDATE.json [options]\n"
        "Matches entries by plugin, size and params and tests each pair's run() samples\n"
        "(Mann-Whitney U), and their metrics by the way each improves. Exit status 1 when an\n"
        "entry is slower beyond --threshold with significance, fails verification in the\n"
        "candidate, or has a metric worse beyond --threshold; 0 otherwise; 2 on bad input.\n"
        "Below the table: how many entries each file verified, and those only one did.\n"
        "Options");
    described.add_options()
        ("help,h", "show this help")
        ("threshold", po::value<double>(&options.threshold)->default_value(options.threshold),
         "relative change below which an entry counts as the same (0.05 = 5%)")
        ("alpha", po::value<double>(&options.alpha)->default_value(options.alpha),
         "significance level of the U test")
        ("ignore-metric", po::value<std::vector<std::string>>()->composing()->notifier([&](const std::vector<std::string> &names) {
             options.ignored_metrics.insert(names.begin(), names.end());
         }),
         "show this metric but never judge it (repeatable): one too noisy on these machines")
        ("candidate-device", po::value<int>(&candidate_device),
         "compare only the candidate's entries measured on this CUDA device (a --devices "
         "sweep), with the baseline's same entries: does GPU N agree with the baseline's?");
    if (parse_subcommand(argc, argv, described, &files)) return exit_ok;
    if (files.size() != 2)
        throw std::invalid_argument("expected two results files, BASELINE and CANDIDATE (got " +
                                    std::to_string(files.size()) + ")");
    if (!(options.threshold >= 0) || !(options.alpha > 0 && options.alpha < 1))
        throw std::invalid_argument("--threshold must be >= 0 and --alpha in (0, 1)");
    // Each file checked against core/base/results_schema.json before anything is read from it.
    ResultsDocument baseline = read_results_file(files[0]), candidate = read_results_file(files[1]);
    refuse_profile_runs(baseline, files[0], "runner compare");
    refuse_profile_runs(candidate, files[1], "runner compare");
    if (candidate_device >= 0) keep_entries_on_device(baseline, candidate, candidate_device);
    const Comparison comparison = compare_results(baseline, candidate, options);
    if (!comparison.warning.empty())
        std::cerr << "\n*** WARNING: " << comparison.warning << " ***\n\n";
    print_comparison(comparison, options);
    print_metrics(comparison, options);
    print_coverage(baseline, candidate);
    return comparison.regressed() ? exit_failed : exit_ok;
}

}  // namespace gpubench
