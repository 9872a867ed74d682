#include "check.hpp"

namespace gpubench {

extern const Check unoptimized_check{
    "unoptimized", CheckVerdict::flag,
    "the plugin was compiled without optimisation: its times say little",
    "the plugin's `build_info` (`GPUBENCH_PLUGIN_BUILD_INFO`) ends in `unoptimized (-O0)` or "
    "`unoptimized (device code built with -G)`, decided by the compiler (`__OPTIMIZE__`, "
    "`__CUDACC_DEBUG__`) where the descriptor is compiled. `gpubench_add_plugin()` builds as "
    "Release when the project sets no build type",
    "", [](const Measurement &e) -> std::string { return e.unoptimized ? "unoptimized" : ""; }};

}  // namespace gpubench
