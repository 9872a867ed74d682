#include "measurement.hpp"

#include <iterator>
#include <stdexcept>

namespace gpubench {

namespace {
constexpr const char *status_names[] = {"ok", "verification_failed", "error", "skipped"};  // by value
}  // namespace

const char *to_string(EntryStatus status) { return status_names[static_cast<size_t>(status)]; }

EntryStatus entry_status_from_string(const std::string &text) {
    for (size_t i = 0; i < std::size(status_names); ++i)
        if (text == status_names[i]) return static_cast<EntryStatus>(i);
    throw std::invalid_argument("unknown entry status '" + text + "'");
}

EntrySettings entry_settings(const MeasureOptions &options) {
    return {options.params, options.seed, options.cpu_threads};
}

bool measured_across_ranks(const Work &work, const MeasureOptions &options) {
    return options.world.together() && (work.flags & GPUBENCH_WORK_RUN_ACROSS_RANKS);
}

const std::vector<double> &headline_run_samples(const Measurement &entry) {
    return entry.timing.per_launch.samples.empty() ? entry.timing.samples.run : entry.timing.per_launch.samples;
}

std::string headline_method(const Measurement &entry) {
    return entry.timing.per_launch.samples.empty() ? "single" : entry.timing.per_launch.method;
}

}  // namespace gpubench
