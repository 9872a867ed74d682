// How many entries ended in each status, counted from the typed record: a sweep's entries (its
// summary), and a merged file's (runner merge).
#pragma once

#include "measure.hpp"

#include <cstddef>
#include <string>

namespace gpubench {

struct StatusTally {
    size_t ok = 0, verification_failed = 0, errors = 0, skipped = 0;
    void count(EntryStatus status) {
        switch (status) {
            case EntryStatus::ok: ++ok; break;
            case EntryStatus::verification_failed: ++verification_failed; break;
            case EntryStatus::error: ++errors; break;
            case EntryStatus::skipped: ++skipped; break;
        }
    }
    size_t entries() const { return ok + verification_failed + errors + skipped; }
    // A failed verification or an error: the sweep's exit status is 1.
    bool any_failed() const { return verification_failed > 0 || errors > 0; }
    // "1 failed verification, 0 errors, 2 skipped": what went otherwise than ok.
    std::string not_ok_text() const {
        return std::to_string(verification_failed) + " failed verification, " + std::to_string(errors) +
               " errors, " + std::to_string(skipped) + " skipped";
    }
};

}  // namespace gpubench
