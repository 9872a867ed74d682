#include "check.hpp"

namespace gpubench {

extern const Check persisting_l2_left_check{
    "persisting_l2_left", CheckVerdict::flag,
    "the plugin left the L2 set aside for persisting accesses, or an access-policy window on the "
    "runner's stream, changed after destroy(): the runner set it back, so that later entries find "
    "the L2 as the worker's context had it",
    "before each GPU entry's create() and after its destroy(), the runner reads "
    "`cudaLimitPersistingL2CacheSize` on its devices and the access-policy window of its streams "
    "(a context need not start with none set aside: a driver may set a default); what changed is "
    "set back (`cudaCtxResetPersistingL2Cache`) and named in `persisting_l2_left`. The entry's own "
    "times stand: a plugin may use persisting L2 in run(), and must restore what it found in destroy()",
    "", [](const Measurement &e) -> std::string { return e.persisting_l2_left; }};

}  // namespace gpubench
