// What travels between the runner and a worker process, which serves the entries of one
// plugin (its file is on the worker's command line, see worker_main.hpp): requests, one JSON
// line each (the size, the options, the host's roofline), and for each request a report, a
// stream of JSON lines: {"stage": "setup"} as each stage begins, then {"entry": {...}}, its
// Measurement in the results file's encoding of an entry, less the runner's notes
// (entry_json.hpp).
#pragma once

#include "entry_json.hpp"
#include "entry_measurer.hpp"
#include "measure.hpp"
#include "roofline.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>

namespace gpubench {

struct WorkerRequest {
    uint64_t size = 0;
    MeasureOptions options;
    Roofline host_roofline;  // measured once by the runner (host_peaks.hpp)
    std::optional<RunBudget> budget;  // the default sweep's (entry_measurer.hpp)
};

nlohmann::json request_to_wire(const WorkerRequest &request);
WorkerRequest request_from_wire(const nlohmann::json &wire);  // throws on a malformed request

}  // namespace gpubench
