// What travels between the runner and the worker process that measures one entry: the
// request (which plugin file, which size, the options) and the worker's report, a stream of
// JSON lines: {"stage": "setup"} as each stage begins, then {"entry": {...}} at the end.
// The entry form is lossless (every field of EntryResult, raw samples rather than the results
// file's summaries); work, verification and metrics have the results file's shapes.
#pragma once

#include "measure.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace gpubench {

struct WorkerRequest {
    std::string plugin_file, plugin_name;
    uint64_t size = 0;
    MeasureOptions options;
};

nlohmann::json request_to_wire(const WorkerRequest &request);
WorkerRequest request_from_wire(const nlohmann::json &wire);  // throws on a malformed request

nlohmann::json entry_to_wire(const EntryResult &entry);
EntryResult entry_from_wire(const nlohmann::json &wire);  // throws on a malformed entry

}  // namespace gpubench
