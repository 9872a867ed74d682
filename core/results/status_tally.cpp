#include "status_tally.hpp"

namespace gpubench {

void StatusTally::count(EntryStatus status) {
    switch (status) {
        case EntryStatus::ok: ++ok; break;
        case EntryStatus::verification_failed: ++verification_failed; break;
        case EntryStatus::error: ++errors; break;
        case EntryStatus::skipped: ++skipped; break;
    }
}

std::string StatusTally::not_ok_text() const {
    return std::to_string(verification_failed) + " failed verification, " + std::to_string(errors) + " errors, " +
           std::to_string(skipped) + " skipped";
}

}  // namespace gpubench
