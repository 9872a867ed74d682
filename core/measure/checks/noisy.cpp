#include "check.hpp"

namespace gpubench {

extern const Check noisy_check{
    "noisy", CheckVerdict::flag,
    "the noise criterion (--max-noise) was not met before a limit (--max-time, --max-samples) "
    "stopped sampling: the median is less certain than asked",
    "", "", [](const Measurement &e) -> std::string {
        const Timing &t = e.timing;
        return t.noise.max_noise > 0 && !t.noise.converged && !t.samples.run.empty() ? "noisy" : "";
    }};

}  // namespace gpubench
