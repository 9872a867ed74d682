// An entry's derived figures: every figure computed from what was measured rather than
// measured itself (summaries, throughput and its share of the roofline, CPU use, energy,
// flags). One function of the entry and the run that measured it: the results file writes
// them for outside tools, the console shows them, and every reader of a file computes them
// again from the entry it decoded (no C++ reads them back).
#pragma once

#include "measure.hpp"
#include "statistics.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// What the figures take from the run beside the entry itself: a results file's header
// (host.logical_cores, energy.gpu.idle_w), or this host while measuring (this_host_run()).
struct RunBasis {
    uint64_t logical_cores = 0;  // CPU use as a share of them; 0: unknown (shown as 0%)
    // What a CPU entry's node power counts for the GPU board: nothing where the sweep had no
    // GPU (has_gpu false), else its idle power at the sweep's start; nullopt where that is not
    // known, and why in gpu_idle_note.
    bool has_gpu = true;
    std::optional<double> gpu_idle_w;
    std::string gpu_idle_note;
};
RunBasis this_host_run();

// The GPU board's energy over the entry's energy window (EntryResources::gpu_board_energy),
// charged to one run at the median run time (NVML's counter is too coarse to time single runs).
struct EntryEnergy {
    double sampling_j = 0, mean_power_w = 0, per_run_j = 0, gflops_per_j = 0;
    double window_s = 0;  // the seconds sampling_j was counted over
};

struct EntryFigures {
    Summary run, upload, download, end_to_end;
    Summary compute;            // the headline: per launch for short GPU runs, else = run
    std::optional<Summary> run_host;  // GPU entries: run()'s host time per call, back to back
    std::optional<Summary> run_host_in_cycle;  // and within the sampled cycles
    double gflops = 0;          // work.flops / median compute time
    double gbytes_per_s = 0;    // work.bytes / median compute time
    double items_per_s = 0;     // work.items / median compute time
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
    double cpu_cores = 0;       // CPU time over wall time while sampling
    double cpu_percent = 0;     // cpu_cores over the run's logical cores, in %
    std::optional<EntryEnergy> energy;  // nullopt: no energy counter, or its window too short...
    std::string energy_note;            // ...and why, where a counter was read; or what to know
    // The CPU packages' power over the entry's energy window (EntryResources::cpu_energy), and
    // per run at the median run time.
    std::optional<double> cpu_power_w, cpu_energy_per_run_j;
    // Node power during a run: the CPU packages' power during the entry's window + the GPU
    // board's, its own reading for a GPU entry, its idle power (RunBasis) for a CPU entry. Times
    // a run's time, that run's node energy: node_energy_per_run_j at the median run time.
    std::optional<double> node_power_w, node_energy_per_run_j;
    double node_gpu_power_w = 0;  // the GPU board's part of node_power_w...
    std::string node_gpu;         // ...and where it came from: "measured", "idle" or "none" (no GPU)
    std::string node_note;        // why there is no node power, where there is none
    // What a reader must know before trusting the numbers, as short words: the flag checks
    // that found something (checks/check.hpp).
    std::vector<std::string> flags;
    // --counters: where the counted work disagrees with the declared (work_mismatch.hpp).
    std::string work_mismatch;
    // The entry's metrics, then the scalar figures above as measured metrics: the headline
    // throughput, % of peak, CPU use, energy per run (the GPU board's, the CPU packages', the
    // node's) and GFLOP/J, where known. Every writer's
    // metric columns show this list (report_metrics), so a new figure is a line of entry_figures.cpp.
    std::vector<EntryMetric> metrics;
};
EntryFigures entry_figures(const Measurement &entry, const RunBasis &run);

// Each cycle's upload + run + download: the end-to-end samples (run alone where a transfer
// was not timed every cycle).
std::vector<double> end_to_end_samples(const Timing::Samples &samples);

// A headline's unit: "GFLOP/s", "GB/s", "<item_name>/s" ("items/s" unnamed); "" for none.
std::string headline_unit(const std::string &headline, const std::string &item_name = "");

}  // namespace gpubench
