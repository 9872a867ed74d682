#include "compare.hpp"

#include "metric_format.hpp"
#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace gpubench {

double mann_whitney_p(const std::vector<double> &a, const std::vector<double> &b) {
    const size_t n1 = a.size(), n2 = b.size();
    if (n1 < 2 || n2 < 2) return 1;
    // Ranks of the pooled samples, ties getting their mean rank.
    std::vector<std::pair<double, int>> pooled;
    for (double v : a) pooled.push_back({v, 0});
    for (double v : b) pooled.push_back({v, 1});
    std::sort(pooled.begin(), pooled.end());
    const size_t n = pooled.size();
    double rank_sum_a = 0, tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && pooled[j].first == pooled[i].first) ++j;
        const double mean_rank = (i + 1 + j) / 2.0;  // ranks i+1 .. j
        for (size_t k = i; k < j; ++k)
            if (pooled[k].second == 0) rank_sum_a += mean_rank;
        const double t = static_cast<double>(j - i);
        tie_term += t * t * t - t;
        i = j;
    }
    const double u = rank_sum_a - n1 * (n1 + 1) / 2.0;
    const double mean = n1 * n2 / 2.0;
    const double variance =
        n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (static_cast<double>(n) * (n - 1.0)));
    if (variance <= 0) return 1;  // all values equal
    const double z = (std::fabs(u - mean) - 0.5) / std::sqrt(variance);  // continuity correction
    return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

// In the enums' order.
constexpr const char *verdict_names[] = {"faster", "SLOWER", "same", "ambiguous", "FAILED", "only in baseline",
                                         "only in candidate"};
constexpr const char *metric_verdict_names[] = {"better", "WORSE", "same", "not judged"};

const char *to_string(Verdict verdict) { return verdict_names[static_cast<size_t>(verdict)]; }

const char *to_string(MetricVerdict verdict) { return metric_verdict_names[static_cast<size_t>(verdict)]; }

bool Comparison::regressed() const {
    return std::any_of(entries.begin(), entries.end(), [](const ComparedEntry &e) {
               return e.verdict == Verdict::slower || e.verdict == Verdict::failed;
           }) ||
           std::any_of(metrics.begin(), metrics.end(),
                       [](const ComparedMetric &m) { return m.verdict == MetricVerdict::worse; });
}

namespace {

std::string machine(const ResultsDocument &document) {
    return document.gpu_name.value_or("no GPU");
}

ComparedEntry compared(const EntryResult &entry, Verdict verdict) {
    return {.plugin = entry.plugin, .params = entry.settings.params, .size = entry.size, .verdict = verdict};
}

// The samples two entries are compared on: per launch when both were timed per launch by the
// same method, else single run() calls on both sides (empty for a side without samples).
std::pair<std::vector<double>, std::vector<double>> comparable_samples(const EntryResult &base,
                                                                       const EntryResult &candidate) {
    if (base.timing.samples.run.empty() || candidate.timing.samples.run.empty()) return {};
    if (!base.timing.per_launch.samples.empty() && headline_method(base) == headline_method(candidate))
        return {base.timing.per_launch.samples, candidate.timing.per_launch.samples};
    return {base.timing.samples.run, candidate.timing.samples.run};
}

// The metrics both entries have, judged by the candidate's direction: those of the plugins,
// not those the runner measured.
void compare_metrics(const EntryResult &base, const EntryResult &candidate, const CompareOptions &options,
                     std::vector<ComparedMetric> &out) {
    for (const EntryMetric &m : candidate.metrics) {
        const EntryMetric *before = find_metric(base.metrics, m.name);
        if (!before) continue;
        ComparedMetric c{candidate.plugin, candidate.settings.params, candidate.size, m, before->value};
        if (m.better == GPUBENCH_BETTER_UNSTATED || m.measured || before->measured ||
            options.ignored_metrics.count(m.name))
            c.verdict = MetricVerdict::unjudged;
        else if (metric_worse(m.better, before->value, m.value, options.threshold))
            c.verdict = MetricVerdict::worse;
        else if (metric_better(m.better, before->value, m.value, options.threshold))
            c.verdict = MetricVerdict::better;
        else
            c.verdict = MetricVerdict::same;
        out.push_back(std::move(c));
    }
}

}  // namespace

Comparison compare_results(const ResultsDocument &baseline, const ResultsDocument &candidate,
                           const CompareOptions &options) {
    Comparison result;
    if (machine(baseline) != machine(candidate))
        result.warning = "the files come from different GPUs (" + machine(baseline) + " vs " +
                         machine(candidate) + "): differences are the machines', not the code's";
    // Two runs may use other seeds: entries match in any seed.
    std::map<EntryIdentity, const EntryResult *> base, cand;
    for (const EntryResult &e : baseline.entries) base[e.identity().any_seed()] = &e;
    for (const EntryResult &e : candidate.entries) cand[e.identity().any_seed()] = &e;
    for (const auto &[key, b] : base) {
        ComparedEntry c = compared(*b, Verdict::same);
        const auto found = cand.find(key);
        if (found == cand.end()) {
            c.verdict = Verdict::only_baseline;
            result.entries.push_back(c);
            continue;
        }
        const EntryResult &n = *found->second;
        if (b->status == EntryStatus::ok && n.status == EntryStatus::ok) compare_metrics(*b, n, options, result.metrics);
        const auto [bs, ns] = comparable_samples(*b, n);
        if (n.status != EntryStatus::ok && b->status == EntryStatus::ok) {
            c.verdict = Verdict::failed;
            c.note = std::string(to_string(n.status)) + ": " + n.message;
            result.entries.push_back(c);
            continue;
        }
        if (bs.empty() || ns.empty()) {  // skipped on either side: nothing to compare
            c.note = std::string("not measured on both sides (") + to_string(b->status) + " / " + to_string(n.status) + ")";
            result.entries.push_back(c);
            continue;
        }
        c.baseline_median = summarize(bs).median;
        c.candidate_median = summarize(ns).median;
        c.ratio = c.baseline_median > 0 ? c.candidate_median / c.baseline_median : 1;
        c.p_value = mann_whitney_p(bs, ns);
        const bool significant = c.p_value < options.alpha;
        const bool beyond = std::fabs(c.ratio - 1) > options.threshold;
        if (!beyond)
            c.verdict = Verdict::same;
        else if (!significant)
            c.verdict = Verdict::ambiguous;
        else
            c.verdict = c.ratio > 1 ? Verdict::slower : Verdict::faster;
        if (c.verdict == Verdict::ambiguous && std::min(bs.size(), ns.size()) < 9)
            c.note = "few samples (Mann-Whitney needs about 9 a side)";
        result.entries.push_back(c);
    }
    for (const auto &[key, n] : cand)
        if (!base.count(key)) result.entries.push_back(compared(*n, Verdict::only_candidate));
    const auto by_entry = [](const auto &a, const auto &b) {
        return std::tie(a.plugin, a.params, a.size) < std::tie(b.plugin, b.params, b.size);
    };
    std::stable_sort(result.entries.begin(), result.entries.end(), by_entry);
    std::stable_sort(result.metrics.begin(), result.metrics.end(), by_entry);
    return result;
}

}  // namespace gpubench
