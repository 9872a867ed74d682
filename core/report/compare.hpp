// Comparing two results files for regressions: entries matched by plugin, size and params;
// each pair's run() samples put to a Mann-Whitney U test (as Google Benchmark's compare.py
// does) and a verdict: faster, slower, same, or ambiguous (a large change the samples cannot
// tell from noise).
#pragma once

#include "results_model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// Two-sided p-value of the Mann-Whitney U test that the two samples come from one
// distribution (normal approximation with a tie correction). 1 when either has < 2 values.
double mann_whitney_p(const std::vector<double> &a, const std::vector<double> &b);

struct CompareOptions {
    double threshold = 0.05;  // a change smaller than this (5%) is "same" even if significant
    double alpha = 0.05;      // significance level of the U test
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

struct Comparison {
    std::vector<ComparedEntry> entries;
    std::string warning;    // e.g. the files come from different GPUs; "" when none
    bool regressed() const;  // a significant slowdown beyond the threshold, or a failure
};

Comparison compare_results(const ResultsDocument &baseline, const ResultsDocument &candidate,
                           const CompareOptions &options);

}  // namespace gpubench
