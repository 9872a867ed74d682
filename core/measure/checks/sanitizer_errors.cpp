#include "check.hpp"

namespace gpubench {

extern const Check sanitizer_errors_check{
    "sanitizer_errors", CheckVerdict::error, "`--sanitize TOOL`: compute-sanitizer reported errors",
    "each entry's worker runs under compute-sanitizer (PATH, else the toolkit's bin folder) with "
    "memcheck, racecheck, initcheck or synccheck, one worker per entry; its error summary is "
    "recorded per entry (`sanitizer`). The stream check is off under it: the sanitizer's own "
    "device work outlives the spans",
    "an entry with errors fails; every sanitized entry is flagged `sanitized` (its times are not "
    "comparable)",
    nullptr};  // judged by the worker's owner from the sanitizer's log (core/worker/sanitizer.hpp)

}  // namespace gpubench
