#include "check.hpp"

namespace gpubench {

extern const Check profile_check{
    "profile", CheckVerdict::flag,
    "--profile: a fixed count of run() calls for a profiler, unheld and unaudited: not a "
    "measurement, and compare and history refuse it",
    "`--profile --runs N` ([profiling.md](profiling.md)); `runner compare` and `runner history add` refuse its file", "",
    [](const Measurement &e) -> std::string { return e.timing.profile_runs ? "profile" : ""; }};

}  // namespace gpubench
