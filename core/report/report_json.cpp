// --format json (report_formats.hpp): the report's workloads, columns and points as JSON,
// each point with its metrics as the results file has them, then its scalar figures as metrics.
#include "report_formats.hpp"

#include "entry_json.hpp"

namespace gpubench {

using nlohmann::json;

json report_json(const std::vector<WorkloadReport> &reports) {
    json all = json::array();
    for (const WorkloadReport &r : reports) {
        json columns = json::array();
        for (const ReportColumn &c : r.columns) {
            json points = json::array();
            for (const auto &[size, p] : c.points) {
                json point = {{"size", size}, {"compute_s", p.compute_s()},
                              {"end_to_end_s", p.end_to_end_s()}, {"flags", p.figures.flags}};
                if (auto s = speedup(r, c, size, false)) point["speedup_compute"] = *s;
                if (auto s = speedup(r, c, size, true)) point["speedup_end_to_end"] = *s;
                if (const auto host = run_host_s(p)) point["run_host_s"] = *host;
                if (!p.figures.metrics.empty()) point["metrics"] = p.figures.metrics;
                points.push_back(point);
            }
            columns.push_back({{"backend", c.backend}, {"source", c.source},
                               {"device", c.gpu ? "gpu" : "cpu"}, {"points", points}});
            if (!c.gpu_model.empty()) columns.back()["gpu_model"] = c.gpu_model;
        }
        all.push_back({{"workload", r.workload}, {"params", r.params}, {"baseline", r.baseline},
                       {"columns", columns}, {"answer", answers_json(r)}});
    }
    return all;
}

void write_json_report(std::ostream &out, const ReportInput &input) {
    out << report_json(input.reports).dump(1) << '\n';
}

}  // namespace gpubench
