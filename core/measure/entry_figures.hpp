// An entry's figures from its samples: medians, throughput and its share of the roofline,
// shared by the results file, the console and the checks of measure.cpp.
#pragma once

#include "measure.hpp"
#include "statistics.hpp"

#include <string>

namespace gpubench {

// Median-based figures of an entry, shared by the JSON and the console table.
struct EntryFigures {
    Summary run, upload, download, end_to_end;
    Summary compute;            // the headline: per launch for short GPU runs, else = run
    double gflops = 0;          // work.flops / median compute time
    double gbytes_per_s = 0;    // work.bytes / median run time
    double items_per_s = 0;     // work.items / median run time
    // The throughput the plugin wants shown first: "gflops", "gbytes_per_s", "items_per_s",
    // or "" when it declared no work at all.
    std::string headline;
    double headline_value = 0;
    // Achieved over attainable on the roofline of the device's peaks (entry.peak_*): the
    // larger of FLOP rate / peak FLOP rate and byte rate / peak bandwidth, in %. 0 when the
    // peaks are not known (CPU entries). roofline_bound: "compute" or "memory".
    double percent_of_peak = 0;
    std::string roofline_bound;
    std::string peak_level;     // memory-bound: the level it is read against (entry.peak_level)
};
EntryFigures entry_figures(const EntryResult &entry);

}  // namespace gpubench
