// Comparing two results files for regressions: entries matched by plugin, size and params;
// each pair's run() samples put to a Mann-Whitney U test (as Google Benchmark's compare.py
// does) and a verdict: faster, slower, same, or ambiguous (a large change the samples cannot
// tell from noise). Their metrics, one value a side, are judged by their direction alone:
// better, worse, or the same within the threshold.
#pragma once

#include "results_model.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace gpubench {

// Two-sided p-value of the Mann-Whitney U test that the two samples come from one
// distribution (normal approximation with a tie correction). 1 when either has < 2 values.
double mann_whitney_p(const std::vector<double> &a, const std::vector<double> &b);

struct CompareOptions {
    double threshold = 0.05;  // a change smaller than this (5%) is "same" even if significant
    double alpha = 0.05;      // significance level of the U test
    std::set<std::string> ignored_metrics;  // shown, never judged (--ignore-metric)
};

enum class Verdict { faster, slower, same, ambiguous, failed, only_baseline, only_candidate };
const char *to_string(Verdict verdict);

struct ComparedEntry {
    std::string plugin, params;
    uint64_t size = 0;
    double baseline_median = 0, candidate_median = 0;  // run() seconds
    double ratio = 0;       // candidate / baseline median: above 1 is slower
    double p_value = 1;
    Verdict verdict = Verdict::same;
    std::string note;       // why it failed, or which side lacks it
};

// unjudged: no direction, ignored, or measured (one value a side has no spread to test: the
// history, which has a series, judges those).
enum class MetricVerdict { better, worse, same, unjudged };
const char *to_string(MetricVerdict verdict);

// A metric both sides of a compared pair have (the candidate's direction and unit).
struct ComparedMetric {
    std::string plugin, params;
    uint64_t size = 0;
    EntryMetric candidate;
    double baseline_value = 0;
    MetricVerdict verdict = MetricVerdict::unjudged;
};

struct Comparison {
    std::vector<ComparedEntry> entries;
    std::vector<ComparedMetric> metrics;  // of the pairs both sides verified, in entry order
    std::string warning;    // e.g. the files come from different GPUs; "" when none
    // A significant slowdown beyond the threshold, a failure, or a metric worse beyond it.
    bool regressed() const;
};

Comparison compare_results(const ResultsDocument &baseline, const ResultsDocument &candidate,
                           const CompareOptions &options);

}  // namespace gpubench
