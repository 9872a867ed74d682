// What travels between the runner and a worker process, which serves the entries of one
// plugin (its file is on the worker's command line, see worker_main.hpp): requests, one JSON
// line each (the size, the options, the host's roofline), and for each request a report, a
// stream of JSON lines: {"stage": "setup"} as each stage begins, then {"entry": {...}}.
// The entry form is lossless (every field of EntryResult, raw samples rather than the results
// file's summaries); work, verification and metrics have the results file's shapes.
#pragma once

#include "entry_measurer.hpp"
#include "measure.hpp"
#include "roofline.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace gpubench {

struct WorkerRequest {
    uint64_t size = 0;
    MeasureOptions options;
    Roofline host_roofline;  // measured once by the runner (host_peaks.hpp)
    std::optional<RunBudget> budget;  // the default sweep's (entry_measurer.hpp)
};

nlohmann::json request_to_wire(const WorkerRequest &request);
WorkerRequest request_from_wire(const nlohmann::json &wire);  // throws on a malformed request

nlohmann::json entry_to_wire(const EntryResult &entry);
EntryResult entry_from_wire(const nlohmann::json &wire);  // throws on a malformed entry

}  // namespace gpubench
