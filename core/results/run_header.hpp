// What a results file says about the run that wrote it: machine, GPUs, driver, commit, date,
// build and options. Reports print it as their header; the history keys its runs by it.
#pragma once

#include "entry_figures.hpp"
#include "roofline.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

// A device's roofline as a results file's header records it: a GPU's ("gpu", or each of
// "gpus" in a --devices sweep) or the host's ("host", recorded when CPU plugins ran).
struct RecordedRoofline {
    std::string device;  // the GPU's name; "host" for the host's
    int index = -1;      // the GPU's CUDA device index; -1 for the host
    Roofline roofline;
};

struct RunHeader {
    std::string file;     // the results file, as given
    std::string created;  // ISO 8601, UTC
    std::string host_name, cpu_model, os;
    uint64_t logical_cores = 0;
    std::vector<std::string> gpus;  // the GPU models of the sweep ("gpus", else "gpu"); empty: none
    std::string driver;             // the CUDA driver version ("13.0"), "" without a GPU
    std::string commit;             // build.git_revision ("unknown" when not built from git)
    std::string build_type, cxx_compiler, cuda_compiler, gpubench_version, plugin_abi;
    std::vector<std::string> command_line;
    nlohmann::json options = nlohmann::json::object();  // the file's "options", as written
    bool resumed = false;           // continued with --resume (the file's "resumed")
    std::vector<RecordedRoofline> rooflines;  // the GPUs' in the header's order, then the host's
    // How long the sweep took: when its last entry finished after the runner started
    // (harness.finished_after_s), per shard in a merged file (shard -1: a whole sweep). Empty
    // for a file continued with --resume, whose runs each count from their own start.
    std::vector<std::pair<int, double>> wall_s;
    // Sets wall_s from the entries the header describes: all of the file's, or those a report
    // keeps of them (--newest).
    void time_sweep(const std::vector<EntryResult> &entries);

    std::string machine() const;    // "vm (Intel Xeon, 16 cores)"
    std::string gpu_list() const;   // "2 x NVIDIA H100 80GB HBM3", "" without a GPU
    std::string build() const;      // "Release, GNU 12.2.0, nvcc 13.0.88, gpubench 0.1.0"
    std::string wall_time() const;  // "71.2 s", or "shard 0: 71.2 s, shard 1: 69.8 s (...)"
    RunBasis basis() const { return {logical_cores}; }  // what its entries' figures take from it
    // The roofline of the device `entry` ran on: its first GPU's (by name where the sweep
    // probed it, else by index), or the host's for a CPU entry; nullptr where none is recorded.
    const RecordedRoofline *roofline_of(const EntryResult &entry) const;
};

// Reads the header of a checked results document (read_results_json); fields a file lacks stay
// empty, and so does wall_s (time_sweep, once its entries are decoded).
RunHeader run_header(const nlohmann::json &document, const std::string &file);

}  // namespace gpubench
