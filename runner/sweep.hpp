// A sweep: every selected plugin at every size, printed and recorded as each entry finishes.
#pragma once

#include "gpu.hpp"
#include "measure.hpp"
#include "plugin_library.hpp"
#include "results.hpp"

#include <optional>
#include <ostream>
#include <vector>

namespace gpubench {

struct SweepTally {
    size_t ok = 0, verification_failed = 0, errors = 0, skipped = 0;
    int exit_status() const;  // see ExitStatus in cli.hpp
};

// `sizes` empty: each plugin's default sizes. CUDA plugins run only while `gpu` is available;
// otherwise (or once the device is lost) their entries are recorded as skipped with the reason.
SweepTally run_sweep(const std::vector<const Plugin *> &plugins,
                     const std::optional<std::vector<uint64_t>> &sizes,
                     const MeasureOptions &options, GpuInfo gpu, ResultsFile &results,
                     std::ostream &out);

}  // namespace gpubench
