// --format csv (report_formats.hpp): one row per measured size of each column, with its
// speedups, its column's crossover and its flags, then one column per metric any entry has.
#include "report_formats.hpp"

#include "metric_format.hpp"
#include "text_format.hpp"

namespace gpubench {

void write_csv(std::ostream &out, const std::vector<WorkloadReport> &reports) {
    const std::vector<EntryMetric> metrics = report_metrics(reports);
    out << "workload,params,source,backend,device,size,compute_s,end_to_end_s,"
           "speedup_compute,speedup_end_to_end,crossover,flags,gpu_model,run_host_s";
    const auto number = [](std::optional<double> v) { return v ? format_text("%.6g", *v) : std::string(); };
    const auto quoted = [](const std::string &text) {
        if (text.find_first_of(",\"") == std::string::npos) return text;
        std::string q = "\"";
        for (char ch : text) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        return q + "\"";
    };
    for (const Metric &m : metrics) out << ',' << quoted(metric_heading(m));
    out << '\n';
    for (const WorkloadReport &r : reports)
        for (const ReportColumn &c : r.columns) {
            std::string crossover;
            if (auto it = r.crossover.find(c.label()); it != r.crossover.end())
                crossover = crossover_text(r, it->second, true);
            for (const auto &[size, p] : c.points) {
                out << quoted(r.workload) << ',' << quoted(r.params) << ',' << quoted(c.source) << ','
                    << quoted(c.backend) << ',' << (c.gpu ? "gpu" : "cpu") << ',' << size << ','
                    << number(p.compute_s()) << ',' << number(p.end_to_end_s()) << ','
                    << number(speedup(r, c, size, false)) << ','
                    << number(speedup(r, c, size, true)) << ',' << crossover << ','
                    << quoted(join(p.figures.flags, " ")) << ',' << quoted(c.gpu_model) << ','
                    << number(run_host_s(p));
                for (const Metric &m : metrics) {
                    const EntryMetric *found = find_metric(p.figures.metrics, m.name);
                    out << ',' << number(found ? std::optional<double>(found->value) : std::nullopt);
                }
                out << '\n';
            }
        }
}

void write_csv_report(std::ostream &out, const ReportInput &input) { write_csv(out, input.reports); }

}  // namespace gpubench
