#include "change_points.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

namespace gpubench {

namespace {

double segment_median(const std::vector<double> &series, size_t begin, size_t end) {
    return summarize({series.begin() + static_cast<std::ptrdiff_t>(begin),
                      series.begin() + static_cast<std::ptrdiff_t>(end)}).median;
}

// The L1 cost of a growing segment, sum |x - median|, kept as values are appended: the lower
// half in a max-heap, the upper half in a min-heap, with their sums. O(log n) per value.
class RunningL1Cost {
public:
    void add(double x) {
        if (lower_.empty() || x <= lower_.top()) push(lower_, lower_sum_, x);
        else push(upper_, upper_sum_, x);
        // Rebalance: lower holds as many values as upper, or one more.
        if (lower_.size() > upper_.size() + 1) move_top(lower_, lower_sum_, upper_, upper_sum_);
        else if (upper_.size() > lower_.size()) move_top(upper_, upper_sum_, lower_, lower_sum_);
    }
    // With the median m: sum over the upper half of (x - m) plus over the lower of (m - x).
    double cost() const {
        const double odd_median = lower_.size() > upper_.size() ? lower_.top() : 0;
        return upper_sum_ - lower_sum_ + odd_median;
    }

private:
    template <class Heap> static void push(Heap &heap, double &sum, double x) {
        heap.push(x);
        sum += x;
    }
    template <class From, class To> static void move_top(From &from, double &from_sum, To &to, double &to_sum) {
        const double x = from.top();
        from.pop();
        from_sum -= x;
        push(to, to_sum, x);
    }
    std::priority_queue<double> lower_;
    std::priority_queue<double, std::vector<double>, std::greater<double>> upper_;
    double lower_sum_ = 0, upper_sum_ = 0;
};

// Optimal partitioning (exact dynamic programming over every segment, O(n^2 log n)): the
// segment boundaries minimising sum of L1 costs + penalty per segment. Every segment holds
// two points or more, except the last, which may hold one. Returns the segments' ends.
std::vector<size_t> optimal_partition(const std::vector<double> &series, double penalty) {
    const size_t n = series.size();
    std::vector<double> best(n + 1, std::numeric_limits<double>::infinity());
    std::vector<size_t> previous(n + 1, 0);
    best[0] = 0;
    for (size_t begin = 0; begin < n; ++begin) {
        if (!std::isfinite(best[begin])) continue;  // no valid partition ends here
        RunningL1Cost segment;
        for (size_t end = begin + 1; end <= n; ++end) {
            segment.add(series[end - 1]);
            if (end - begin < 2 && end != n) continue;
            const double total = best[begin] + segment.cost() + penalty;
            if (total < best[end]) {
                best[end] = total;
                previous[end] = begin;
            }
        }
    }
    std::vector<size_t> ends;
    for (size_t end = n; end > 0; end = previous[end]) ends.push_back(end);
    std::reverse(ends.begin(), ends.end());
    return ends;
}

// The size of the step between two levels, as a fraction of the first's magnitude (a metric
// may be negative); infinite when the first is 0 (no relative step can be told).
double relative_size(double before, double after) {
    return before != 0 ? std::fabs((after - before) / before) : std::numeric_limits<double>::infinity();
}

// Joins neighbouring segments whose levels differ by less than `min_step`, the closest pair
// first, re-fitting each join's level, until every remaining step is at least that large.
// Returns the remaining segments' levels.
std::vector<double> merge_small_steps(const std::vector<double> &series, std::vector<size_t> &ends,
                                      double min_step) {
    std::vector<double> levels;
    for (size_t i = 0; i < ends.size(); ++i) levels.push_back(segment_median(series, i ? ends[i - 1] : 0, ends[i]));
    while (ends.size() > 1) {
        size_t closest = 0;
        double smallest = std::numeric_limits<double>::infinity();
        for (size_t i = 0; i + 1 < ends.size(); ++i) {
            const double step = relative_size(levels[i], levels[i + 1]);
            if (step < smallest) smallest = step, closest = i;
        }
        if (!(smallest < min_step)) break;
        ends.erase(ends.begin() + static_cast<std::ptrdiff_t>(closest));
        levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(closest));
        levels[closest] = segment_median(series, closest ? ends[closest - 1] : 0, ends[closest]);
    }
    return levels;
}

// The noise estimate the penalty is scaled by: the median absolute successive difference,
// as a Gaussian standard deviation (x 1.4826 / sqrt 2), at least 0.1% of the median level so
// that a perfectly flat series has one.
double series_noise(const std::vector<double> &series) {
    std::vector<double> differences, magnitudes;
    for (size_t i = 1; i < series.size(); ++i) differences.push_back(std::fabs(series[i] - series[i - 1]));
    for (double x : series) magnitudes.push_back(std::fabs(x));
    // The difference of two points has sqrt(2) times their noise; 1.4826 x MAD is a standard
    // deviation for Gaussian noise.
    const double from_differences = 1.4826 * summarize(differences).median / std::sqrt(2.0);
    const double floor = 1e-3 * summarize(magnitudes).median;
    return std::max({from_differences, floor, std::numeric_limits<double>::min()});
}

}  // namespace

std::vector<ChangePoint> find_change_points(const std::vector<double> &series, const ChangePointOptions &options) {
    if (series.size() < 3) return {};  // a step needs two points before it and one after
    const double n = static_cast<double>(series.size());
    const double penalty = options.penalty * series_noise(series) * std::log(n + 1);
    std::vector<size_t> ends = optimal_partition(series, penalty);
    const std::vector<double> levels = merge_small_steps(series, ends, options.min_relative_step);
    std::vector<ChangePoint> steps;
    for (size_t i = 0; i + 1 < ends.size(); ++i) steps.push_back({ends[i], levels[i], levels[i + 1]});
    return steps;
}

}  // namespace gpubench
