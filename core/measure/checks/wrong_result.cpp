#include "check.hpp"

#include "text_format.hpp"

namespace gpubench {

extern const Check wrong_result_check{
    "wrong_result", CheckVerdict::invalid, "the plugin's last result differs from its reference",
    "after the samples, the plugin checks its last result against a reference with a documented "
    "tolerance ([plugins.md](plugins.md#parameters-sizes-and-checks-per-workload)): a wrong result "
    "is `*** FAILED ***`, never a fast one",
    "`wrong result: error 0.5 exceeds tolerance 1e-05`", [](const Measurement &e) -> std::string {
        if (e.verification.passed) return "";
        return format_text("wrong result: error %.3g exceeds tolerance %.3g", e.verification.max_error,
                           e.verification.tolerance);
    }};

}  // namespace gpubench
