// The results document's model (core/base/results_schema.json; explained in docs/results-format.md): its
// typed parts, whose fields are declared once here and used by the writer (results.cpp), the
// worker protocol and the readers; its run header; the header of a new file; and reading a file
// back, which hands a reader nothing that has not passed the schema, and what readers count.
#pragma once

#include "build_record.hpp"
#include "entry_figures.hpp"
#include "file_text.hpp"
#include "gpu.hpp"
#include "idle_power.hpp"
#include "json_schema.hpp"
#include "measure.hpp"
#include "roofline.hpp"
#include "statistics.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

// Bumped on any change a reader must know about; independent of the gpubench version.
inline constexpr int results_schema_version = 1;

// ---- Typed parts: each JSON field is named as its member. A field missing on reading takes
// the member's default (files written before it existed); the schema says what must be there.

// The ranks launched together: the file's options.world, a worker request's.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankWorld, rank, ranks, source, folder, timeout_s)
// The measurement options: the file's "options" (and each "resumed" one's, without the world
// of a run alone and without an entry's rendezvous), a worker request's.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MeasureOptions, seed, cpu_threads, cuda_device,
                                                cuda_devices, params, warmup_runs, min_samples, max_samples,
                                                min_time_s, max_noise, max_time_s, cold,
                                                audit_streams, trace_device, hold_stream,
                                                audit_threads, nvtx, counters, profile_runs, world,
                                                rendezvous)
// Statistics of a series of samples: timing.run, .upload, .download, .end_to_end...
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Summary, count, median, mean, min, max, stddev,
                                                rel_stddev)

// A plugin of the file's "plugins", as far as the readers need it.
struct PluginRecord {
    std::string name, workload, backend, device_kind;  // device_kind: "cuda" or "cpu"
    std::string size_meaning;                 // what its sizes count ("n", "matrix side"...)
    std::optional<BuildRecord> build_record;  // not through the macro (read by results_document)
    std::vector<std::string> param_keys;      // its declared params' keys; likewise
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PluginRecord, name, workload, backend, device_kind, size_meaning)

// ---- The header: what a results file says about the run that wrote it (machine, GPUs,
// driver, commit, date, build and options). Reports print it; the history keys its runs by it.

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
    // The energy sources and their idle powers (idle_power.hpp); absent in files from before.
    std::optional<SweepEnergy> energy;
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
    // What its entries' figures take from it: the host's cores, and the GPU board's idle power
    // for a CPU entry's node energy.
    RunBasis basis() const;
    // The roofline of the device `entry` ran on: its first GPU's (by name where the sweep
    // probed it, else by index), or the host's for a CPU entry; nullptr where none is recorded.
    const RecordedRoofline *roofline_of(const EntryResult &entry) const;
};

// Reads the header of a checked results document (read_results_json); fields a file lacks stay
// empty, and so does wall_s (time_sweep, once its entries are decoded).
RunHeader run_header(const nlohmann::json &document, const std::string &file);

// ---- Writing

nlohmann::json gpu_json(const GpuInfo &gpu);
// The header of a new results file: schema_version, created (now), command_line, host (with
// the host's roofline when CPU plugins run), build, gpu (with its roofline when available)
// and options (the measurement options and the sweep's own).
nlohmann::json results_header(std::vector<std::string> command_line, const GpuInfo &gpu,
                              nlohmann::json options, const std::optional<Roofline> &host_roofline);

// ---- Reading: every reader (report, compare, merge, history, resume, shard costs) goes
// through these, and every entry through the one from_json(EntryResult) (entry_json.hpp).

// How many entries ended in each status, counted from the typed record: a sweep's entries (its
// summary), and a merged file's (runner merge).
struct StatusTally {
    size_t ok = 0, verification_failed = 0, errors = 0, skipped = 0;
    void count(EntryStatus status) {
        switch (status) {
            case EntryStatus::ok: ++ok; break;
            case EntryStatus::verification_failed: ++verification_failed; break;
            case EntryStatus::error: ++errors; break;
            case EntryStatus::skipped: ++skipped; break;
        }
    }
    size_t entries() const { return ok + verification_failed + errors + skipped; }
    // A failed verification or an error: the sweep's exit status is 1.
    bool any_failed() const { return verification_failed > 0 || errors > 0; }
    // "1 failed verification, 0 errors, 2 skipped": what went otherwise than ok.
    std::string not_ok_text() const {
        return std::to_string(verification_failed) + " failed verification, " + std::to_string(errors) +
               " errors, " + std::to_string(skipped) + " skipped";
    }
};

// A results document as the readers see it: checked against the schema, then typed. The
// figures derived from an entry are computed again, by entry_figures(entry, header.basis()).
struct ResultsDocument {
    RunHeader header;
    std::optional<std::string> gpu_name;  // the sweep's GPU; nullopt: it had no usable GPU
    std::vector<PluginRecord> plugins;
    std::vector<EntryResult> entries;
};

// Throws std::runtime_error with one line, "<source>: <what>", when `document` is not a
// results file, has another schema version, or breaks the schema (naming the first offending
// field: "run.json: /entries/2/timing: required field 'run' missing").
void check_results_document(const nlohmann::json &document, const std::string &source);
ResultsDocument results_document(const nlohmann::json &document, const std::string &source);
// The typed model of a document read_results_json has checked already (no second check), read
// from `source` (its header's file). Throws std::runtime_error with one line naming the entry
// an entry that cannot be decoded.
ResultsDocument typed_results_document(const nlohmann::json &checked_document, const std::string &source);
// Entry `index` of a checked document from `source`, decoded (from_json): every reader that
// keeps the document's JSON decides with this (resume, merge). Throws std::runtime_error,
// "<source>: /entries/<index>: <what>", where it cannot be decoded.
EntryResult typed_entry(const nlohmann::json &checked_entry, size_t index, const std::string &source);

// A results file read and checked: throws std::runtime_error naming the file and the problem
// (unreadable, empty, not JSON, nested deeper than max_results_depth, or as above).
nlohmann::json read_results_json(const std::filesystem::path &path);
ResultsDocument read_results_file(const std::filesystem::path &path);

// Throws std::runtime_error, "<source>: entry ... is a profile run (--profile) ...", when an
// entry of `document` was measured by --profile: a fixed count of unheld, unaudited calls for
// a profiler is no measurement, and `reader` (compare, history add) takes none.
void refuse_profile_runs(const ResultsDocument &document, const std::string &source, const std::string &reader);

// What each entry of a recorded sweep cost it in wall time, split into what a worker pays once
// (its start) and the entry's own part: what the shards' plan takes from an earlier results
// file or a history (shard_costs.hpp, history_store.hpp) instead of predicting it.
struct RecordedCost {
    double entry_s = 0;  // the entry's wall time less its worker's start: 0 when skipped
    // Where the entry's worker was started for it: the plugin's load (the interpreter and its
    // imports, prepare()) and its first run's excess over the median run (a first
    // compilation). The process and its CUDA context stay in entry_s: nothing records them apart.
    std::optional<double> start_s;
};

// One per entry of `document`, in its order. An entry's wall time is harness.entry_wall_s,
// else its samples' run time plus its first run (files before it), else 0 (skipped). Its
// worker was started for it where harness.worker_started says so (the schema asks for it
// wherever a file has a harness).
std::vector<RecordedCost> recorded_costs(const ResultsDocument &document);

}  // namespace gpubench
