// A sweep: every selected plugin at every size, printed and recorded as each entry finishes.
#pragma once

#include "gpu.hpp"
#include "isolated_entry.hpp"
#include "measure.hpp"
#include "plugin_library.hpp"
#include "results.hpp"

#include <optional>
#include <ostream>
#include <vector>

namespace gpubench {

struct SweepTally {
    size_t ok = 0, verification_failed = 0, errors = 0, skipped = 0;
    size_t resumed = 0;        // entries already in the results file, not measured again
    bool interrupted = false;  // stopped by SIGINT/SIGTERM; the entry under way is not recorded
    int exit_status() const;   // see ExitStatus in cli.hpp
};

// How entries are measured: each in a worker process of its own (the default), or in the
// runner's process (--in-process: for a debugger; a crash then ends the sweep).
struct SweepMode {
    bool isolated = true;
    WorkerLaunch launch;  // with isolated; its `interrupted` is polled in both modes
    bool quiet = false;   // no table rows and no progress: the summary line only
};

// `sizes` empty: each plugin's default sizes. CUDA plugins run only while `gpu` is available;
// otherwise their entries are recorded as skipped with the reason. Entries the results file
// already holds (same plugin, size, params and seed: --resume) are counted, not re-measured.
SweepTally run_sweep(const std::vector<const Plugin *> &plugins,
                     const std::optional<std::vector<uint64_t>> &sizes,
                     const MeasureOptions &options, GpuInfo gpu, ResultsFile &results,
                     std::ostream &out, const SweepMode &mode);

}  // namespace gpubench
