// Metrics are an open set: the plugin's (gpubench_metric) and the runner's own measured values
// travel as one list per entry, each with its name, unit and the way it improves. Every writer
// shows them through these few functions, so a new metric needs no writer changed.
#pragma once

#include "gpubench/descriptor.hpp"
#include "measure.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// "higher", "lower", "" (unstated): the results file's "better".
const char *better_name(gpubench_better better);
// The inverse; nullopt for any other text.
std::optional<gpubench_better> parse_better(const std::string &text);

// The value alone, as every output writes it: "91.25" (a table's heading has the unit).
std::string metric_number(double value);
// The value with its unit: "91.25 %", "3".
std::string metric_value_text(const Metric &metric);
// The name, value and direction, and the remark in parentheses: "accuracy 91.25 % ↑ (MNIST)".
std::string metric_text(const Metric &metric);
// A column heading: "accuracy [%] ↑".
std::string metric_heading(const Metric &metric);

// The metric of that name in `metrics`; nullptr where there is none.
const EntryMetric *find_metric(const std::vector<EntryMetric> &metrics, const std::string &name);

// Whether `after` is worse than `before` by more than `threshold`, a fraction of `before`
// (any change from 0 is beyond it); false when unstated. A time is a metric better lower.
bool metric_worse(gpubench_better better, double before, double after, double threshold);
bool metric_better(gpubench_better better, double before, double after, double threshold);
// Whether `after` differs from `before` by more than `threshold` either way (as above).
bool metric_moved(double before, double after, double threshold);

}  // namespace gpubench
