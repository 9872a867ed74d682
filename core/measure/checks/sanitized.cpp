#include "check.hpp"

namespace gpubench {

namespace {
std::string sanitized(const Measurement &e) { return e.sanitizer.empty() ? "" : "sanitized"; }
}  // namespace

extern const Check sanitized_check{
    "sanitized", CheckVerdict::flag, "measured under compute-sanitizer: times are not comparable",
    "", "", sanitized};

}  // namespace gpubench
