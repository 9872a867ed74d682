#include "measurement.hpp"

#include <stdexcept>

namespace gpubench {

const char *to_string(EntryStatus status) {
    switch (status) {
        case EntryStatus::ok: return "ok";
        case EntryStatus::verification_failed: return "verification_failed";
        case EntryStatus::error: return "error";
        case EntryStatus::skipped: return "skipped";
    }
    return "error";
}

EntryStatus entry_status_from_string(const std::string &text) {
    for (EntryStatus s : {EntryStatus::ok, EntryStatus::verification_failed, EntryStatus::error,
                          EntryStatus::skipped})
        if (text == to_string(s)) return s;
    throw std::invalid_argument("unknown entry status '" + text + "'");
}

EntrySettings entry_settings(const MeasureOptions &options) {
    return {options.params, options.seed, options.cpu_threads, options.warmup_runs, options.max_noise,
            options.profile_runs};
}

bool measured_across_ranks(const Work &work, const MeasureOptions &options) {
    return options.world.together() && (work.flags & GPUBENCH_WORK_RUN_ACROSS_RANKS);
}

const std::vector<double> &headline_run_samples(const Measurement &entry) {
    return entry.per_launch.run_s.empty() ? entry.run_s : entry.per_launch.run_s;
}

std::string headline_method(const Measurement &entry) {
    return entry.per_launch.run_s.empty() ? "single" : entry.per_launch.method;
}

}  // namespace gpubench
