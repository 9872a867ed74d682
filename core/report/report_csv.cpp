// --format csv (report_formats.hpp): one row per measured size of each column, with its
// speedups, its model's figures, its column's crossovers (a GPU column's, compute-only and end to
// end, each with its interval) and its flags, then one column per metric any entry has.
#include "report_formats.hpp"

#include "metric_format.hpp"
#include "text_format.hpp"

#include <cmath>

namespace gpubench {

namespace {

// n*, lo and hi: "never", "always" or "" (unknown) in the first, the bounds empty past the sizes.
std::string crossover_cells(const Crossover &c) {
    if (c.verdict != CrossoverVerdict::from)
        return (c.verdict == CrossoverVerdict::unknown ? "" : verdict_name(c.verdict)) + std::string(",,");
    const auto bound = [](double v) { return v > 0 && !std::isinf(v) ? format_text("%.6g", v) : std::string(); };
    return format_text("%.6g", c.size.value) + ',' + bound(c.size.lo) + ',' + bound(c.size.hi);
}

std::string model_cell(const CostModel &model, uint64_t size) {
    return model.fitted() ? format_text("%.6g", model.at(double(size))) : "";
}

}  // namespace

void write_csv(std::ostream &out, const std::vector<WorkloadReport> &reports) {
    const std::vector<EntryMetric> metrics = report_metrics(reports);
    out << "workload,params,source,backend,device,size,compute_s,end_to_end_s,"
           "speedup_compute,speedup_end_to_end,model_compute_s,model_end_to_end_s,"
           "crossover_compute,crossover_compute_lo,crossover_compute_hi,"
           "crossover_end_to_end,crossover_end_to_end_lo,crossover_end_to_end_hi,flags,gpu_model,run_host_s";
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
            std::string crossovers = ",,,,,";
            if (const ColumnAnswer *answer = answer_of(r, c.label()))
                crossovers = crossover_cells(answer->compute) + ',' + crossover_cells(answer->end_to_end);
            for (const auto &[size, p] : c.points) {
                out << quoted(r.workload) << ',' << quoted(r.params) << ',' << quoted(c.source) << ','
                    << quoted(c.backend) << ',' << (c.gpu ? "gpu" : "cpu") << ',' << size << ','
                    << number(p.compute_s()) << ',' << number(p.end_to_end_s()) << ','
                    << number(speedup(r, c, size, false)) << ','
                    << number(speedup(r, c, size, true)) << ',' << model_cell(c.models.compute, size) << ','
                    << model_cell(c.models.end_to_end, size) << ',' << crossovers << ','
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
