// An entry's one encoding (docs/results-format.md; its schema: core/base/results_schema.json),
// and its parts', each one to_json/from_json pair: the results file's entry, which is also what
// a worker sends the runner for each entry it measures (worker_main.hpp: its Measurement,
// without the runner's notes), and the one decoding every reader of a results file goes
// through. Reading it back gives the EntryResult that was written, so that the runner records
// exactly what the worker measured: the raw samples are in it, and the figures derived from
// stored fields (summaries, throughput, CPU use, energy, flags, a GPU state's "throttled", the
// host's "contended") are written for outside tools and ignored when read.
// An entry without samples keeps its identity, status, work, harness and audit only.
#pragma once

#include "host_load.hpp"
#include "entry_figures.hpp"
#include "host_share.hpp"
#include "json_fields.hpp"
#include "measure.hpp"
#include "nvml_probe.hpp"
#include "resource_watch.hpp"

#include <gpubench/plugin.hpp>

#include <nlohmann/json.hpp>

namespace gpubench {

// "work": the plugin's declared work, its math by name and its flags as booleans. The entry
// adds "item_name" (EntryResult::item_name) beside them.
void to_json(nlohmann::json &json, const Work &work);
void from_json(const nlohmann::json &json, Work &work);

GPUBENCH_JSON_FIELDS(Verification, passed, max_error, tolerance, checked, detail)
// A metric: name, value, unit, text, and "better" ("higher" or "lower"; left out when
// unstated); an entry's also "measured": true where the runner measured it.
void to_json(nlohmann::json &json, const Metric &metric);
void from_json(const nlohmann::json &json, Metric &metric);
void to_json(nlohmann::json &json, const EntryMetric &metric);
void from_json(const nlohmann::json &json, EntryMetric &metric);
GPUBENCH_JSON_FIELDS(EnergyWindow, joules, seconds)
GPUBENCH_JSON_FIELDS(HostLoad, available, wall_s, own_cpu_s, machine_busy_cores, others_cores,
                     own_wait_s, wait_share, host_cores)

// "stream_audit": the busy-after check, "problem" where the trace found one, and either
// "traced" (with "stays_attached" where CUPTI stayed in the process) or "untraced" (why not).
GPUBENCH_JSON_FIELDS(StreamAudit::Trace, by, calls, run_device_work_s, run_operations, stays_attached)
void to_json(nlohmann::json &json, const StreamAudit &audit);
void from_json(const nlohmann::json &json, StreamAudit &audit);

// "thread_audit" (CPU entries), with "problem" where it refused the entry.
void to_json(nlohmann::json &json, const ThreadAudit &audit);
void from_json(const nlohmann::json &json, ThreadAudit &audit);

// "resources": device memory and gpu_busy for GPU entries only; "throttled" derived for each
// GPU state, "contended" and its "reason" for the host's load (the entry adds cpu_cores and
// cpu_percent, entry_figures.hpp).
void to_json(nlohmann::json &json, const EntryResources &resources);
void from_json(const nlohmann::json &json, EntryResources &resources);

// A measurement alone: every key of its entry but the runner's notes. What a worker sends.
void to_json(nlohmann::json &json, const Measurement &measurement);
void from_json(const nlohmann::json &json, Measurement &measurement);

// A recorded entry: its measurement, and the runner's notes (SweepNotes) in the keys they
// belong beside: "harness" (its times where known, with overhead_s beyond plugin_time_s), each
// of "devices" (name, uuid and pci_bus_id where known), "host_share", "shard". Its figures are
// derived on `run`: a results file's entries on its header's (ResultsFile::add_entry), as its
// readers derive them; to_json's on this host's (this_host_run()).
nlohmann::json entry_json(const EntryResult &entry, const RunBasis &run);
void to_json(nlohmann::json &json, const EntryResult &entry);
// Reads every shape of entry the schema accepts, from files of every earlier writer: a field
// a file lacks keeps the member's default (no noise criterion where "noise" is missing).
// Throws nlohmann::json::exception or std::invalid_argument on a malformed entry.
void from_json(const nlohmann::json &json, EntryResult &entry);

}  // namespace gpubench
