// The one table of checks: a new check is its file in this folder and one line below.
#include "check.hpp"

#include <stdexcept>

namespace gpubench {

// Each X(name) is the check `name_check` defined in name.cpp. Flags first, then refusals, in
// the order outputs list them.
#define GPUBENCH_CHECKS(X)                                                                 \
    X(noisy)                                                                               \
    X(throttled)                                                                           \
    X(gpu_shared)                                                                          \
    X(cold)                                                                                \
    X(contended)                                                                           \
    X(unoptimized)                                                                         \
    X(sanitized)                                                                           \
    X(cupti_attached)                                                                      \
    X(work_mismatch)                                                                       \
    X(profile)                                                                             \
    X(persisting_l2_left)                                                                  \
    X(wrong_result)                                                                        \
    X(stream_audit)                                                                        \
    X(thread_audit)                                                                        \
    X(faster_than_hardware)                                                                \
    X(leak)                                                                                \
    X(out_of_memory_after_runs)                                                            \
    X(footprint)                                                                           \
    X(cuda_context_lost)                                                                   \
    X(sanitizer_errors)

#define GPUBENCH_DECLARE_CHECK(name) extern const Check name##_check;
GPUBENCH_CHECKS(GPUBENCH_DECLARE_CHECK)
#undef GPUBENCH_DECLARE_CHECK

const std::vector<const Check *> &check_table() {
#define GPUBENCH_CHECK_ADDRESS(name) &name##_check,
    static const std::vector<const Check *> table{GPUBENCH_CHECKS(GPUBENCH_CHECK_ADDRESS)};
#undef GPUBENCH_CHECK_ADDRESS
    return table;
}

const Check &check_named(std::string_view name) {
    for (const Check *check : check_table())
        if (name == check->name) return *check;
    throw std::out_of_range("no check named '" + std::string(name) + "'");
}

namespace {
// Each verdict's name and what it makes of an entry, by CheckVerdict.
constexpr std::pair<const char *, EntryStatus> verdicts[] = {{"flag", EntryStatus::ok},
                                                             {"invalid", EntryStatus::verification_failed},
                                                             {"error", EntryStatus::error},
                                                             {"skipped", EntryStatus::skipped}};
}  // namespace

const char *to_string(CheckVerdict verdict) { return verdicts[static_cast<size_t>(verdict)].first; }

EntryStatus Check::status() const { return verdicts[static_cast<size_t>(verdict)].second; }

const std::vector<std::pair<std::string, std::string>> &flag_glossary() {
    static const std::vector<std::pair<std::string, std::string>> glossary = [] {
        std::vector<std::pair<std::string, std::string>> flags;
        for (const Check *check : check_table())
            if (check->verdict == CheckVerdict::flag) flags.emplace_back(check->name, check->meaning);
        return flags;
    }();
    return glossary;
}

std::vector<std::string> entry_flags(const Measurement &entry) {
    std::vector<std::string> flags;
    for (const Check *check : check_table())
        if (check->verdict == CheckVerdict::flag && !check->finding(entry).empty()) flags.push_back(check->name);
    return flags;
}

std::string record_refusals(const Measurement &entry, std::string *first) {
    std::string found;
    for (const Check *check : check_table())
        if (check->verdict == CheckVerdict::invalid && check->finding)
            if (std::string finding = check->finding(entry); !finding.empty()) {
                if (first && found.empty()) *first = check->name;
                found += (found.empty() ? "" : "; ") + finding;
            }
    return found;
}

void refuse(const Check &check, std::string finding) {
    throw EntryProblem{check.status(), std::move(finding), check.name};
}

void refuse_if_found(const Check &check, const Measurement &entry) {
    if (std::string finding = check.finding(entry); !finding.empty()) refuse(check, std::move(finding));
}

}  // namespace gpubench
