#include "check.hpp"

namespace gpubench {

extern const Check noisy_check{
    "noisy", CheckVerdict::flag,
    "the noise criterion (--max-noise) was not met before a limit (--max-time, --max-samples) "
    "stopped sampling: the median is less certain than asked",
    "", "", [](const Measurement &e) -> std::string {
        return e.timing.noise.max_noise > 0 && !e.timing.noise.converged && !e.timing.samples.run.empty() ? "noisy" : "";
    }};

}  // namespace gpubench
