#include "check.hpp"

namespace gpubench {

extern const Check sanitized_check{
    "sanitized", CheckVerdict::flag, "measured under compute-sanitizer: times are not comparable",
    "", "", [](const Measurement &e) -> std::string { return e.sanitizer.empty() ? "" : "sanitized"; }};

}  // namespace gpubench
