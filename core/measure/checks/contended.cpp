#include "check.hpp"

namespace gpubench {

extern const Check contended_check{
    "contended", CheckVerdict::flag,
    "the host was crowded while sampling (other processes kept its cores busy and the worker's "
    "threads waited for a CPU): CPU times may be inflated",
    "the rest of the machine used at least half a core (`/proc/stat`, less the worker's own CPU "
    "time) and either the worker's threads waited for a CPU at least 5% of their running time and "
    "at least 5% of the wall time (`/proc/self/task/*/schedstat`), or the whole host was >= 90% "
    "busy. Waits alone do not count: OpenMP threads woken for microsecond regions wait on an idle "
    "host too. `resources.host_load` has the figures and the reason",
    "", [](const Measurement &e) -> std::string {
        return e.resources.host_load && e.resources.host_load->contended() ? "contended" : "";
    }};

}  // namespace gpubench
