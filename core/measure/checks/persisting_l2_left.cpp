#include "check.hpp"

namespace gpubench {

namespace {
std::string persisting_l2_left(const Measurement &e) { return e.persisting_l2_left; }
}  // namespace

extern const Check persisting_l2_left_check{
    "persisting_l2_left", CheckVerdict::flag,
    "the plugin left L2 set aside for persisting accesses, or an access-policy window on the "
    "runner's stream, after destroy(): the runner undid it, so that later entries keep the whole L2",
    "after each GPU entry's destroy(), the runner reads `cudaLimitPersistingL2CacheSize` on its "
    "devices and the access-policy window of its streams; what is left is reset "
    "(`cudaCtxResetPersistingL2Cache`) and named in `persisting_l2_left`. The entry's own times "
    "stand: a plugin may use persisting L2 in run(), and must give it back in destroy()",
    "", persisting_l2_left};

}  // namespace gpubench
