#include "metric_format.hpp"

#include "text_format.hpp"

#include <cmath>
#include <limits>

namespace gpubench {

namespace {

// Each direction's name and its mark to follow a name or value, by its value
// (GPUBENCH_BETTER_UNSTATED 0, GPUBENCH_BETTER_HIGHER 1, GPUBENCH_BETTER_LOWER 2).
constexpr const char *better_names[] = {"", "higher", "lower"};
constexpr const char *better_marks[] = {"", " ↑", " ↓"};

const char *better_mark(gpubench_better better) { return better >= 0 && better < 3 ? better_marks[better] : ""; }

// The change from before to after as a fraction of before; any change from 0 is infinite.
double relative_change(double before, double after) {
    if (before != 0) return (after - before) / std::fabs(before);
    return after == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), after);
}

}  // namespace

const char *better_name(gpubench_better better) { return better >= 0 && better < 3 ? better_names[better] : ""; }

std::optional<gpubench_better> parse_better(const std::string &text) {
    for (int better = 0; better < 3; ++better)
        if (text == better_names[better]) return gpubench_better(better);
    return std::nullopt;
}

std::string metric_number(double value) { return format_text("%.6g", value); }

std::string metric_value_text(const Metric &metric) {
    const std::string value = metric_number(metric.value);
    return metric.unit.empty() ? value : value + " " + metric.unit;
}

std::string metric_text(const Metric &metric) {
    return metric.name + " " + metric_value_text(metric) + better_mark(metric.better) +
           (metric.text.empty() ? "" : " (" + metric.text + ")");
}

std::string metric_heading(const Metric &metric) {
    return metric.name + (metric.unit.empty() ? "" : " [" + metric.unit + "]") + better_mark(metric.better);
}

const EntryMetric *find_metric(const std::vector<EntryMetric> &metrics, const std::string &name) {
    for (const EntryMetric &metric : metrics)
        if (metric.name == name) return &metric;
    return nullptr;
}

bool metric_worse(gpubench_better better, double before, double after, double threshold) {
    const double change = relative_change(before, after);
    if (better == GPUBENCH_BETTER_HIGHER) return change < -threshold;
    if (better == GPUBENCH_BETTER_LOWER) return change > threshold;
    return false;
}

bool metric_moved(double before, double after, double threshold) {
    return std::fabs(relative_change(before, after)) > threshold;
}

bool metric_better(gpubench_better better, double before, double after, double threshold) {
    return better != GPUBENCH_BETTER_UNSTATED && metric_worse(better, after, before, threshold);
}

}  // namespace gpubench
