#include "worker_protocol.hpp"

#include "entry_json.hpp"  // a budget's Work
#include "json_fields.hpp"
#include "results_model.hpp"  // the options' fields

namespace gpubench {

using nlohmann::json;

GPUBENCH_JSON_FIELDS(RunBudget, limit_s, from_size, from_median_s, from_work, from_outside_s,
                     outside_limit_s, behind)

json request_to_wire(const WorkerRequest &r) {
    json wire = {{"size", r.size}, {"options", r.options}, {"host_roofline", roofline_json(r.host_roofline)}};
    if (r.budget) wire["budget"] = *r.budget;
    return wire;
}

WorkerRequest request_from_wire(const json &w) {
    WorkerRequest r;
    r.size = w.at("size").get<uint64_t>();
    r.host_roofline = roofline_from_json(w.at("host_roofline"));
    r.options = w.at("options").get<MeasureOptions>();
    json_fields::get(w, "budget", r.budget);
    return r;
}

}  // namespace gpubench
