// --format markdown (report_formats.hpp): the runs behind the files (report_header.cpp), per
// workload a table of median times and speedups, one of its metrics, and the GPU backends'
// crossovers; the flags explained, then the studies view (report_studies.hpp).
#include "report_formats.hpp"

#include "metric_format.hpp"
#include "report_studies.hpp"
#include "results_model.hpp"
#include "text_format.hpp"

namespace gpubench {

namespace {

std::string format_ratio(std::optional<double> ratio) {
    if (!ratio) return "";
    return format_text(*ratio >= 100 ? "%.0fx" : *ratio >= 10 ? "%.1fx" : "%.2fx", *ratio);
}

// The metrics of the workload's entries, one row per metric and size, one column per
// backend; nothing where no entry has any.
void write_metrics_table(std::ostream &out, const WorkloadReport &r) {
    const std::vector<EntryMetric> metrics = report_metrics({r});
    if (metrics.empty()) return;
    out << "\nMetrics (↑ higher is better, ↓ lower):\n\n| metric | size |";
    for (const ReportColumn &c : r.columns) out << ' ' << c.label() << " |";
    out << "\n| :--- | ---: |";
    for (size_t i = 0; i < r.columns.size(); ++i) out << " ---: |";
    out << '\n';
    for (const Metric &m : metrics)
        for (uint64_t size : r.sizes) {
            std::string cells;
            bool any = false;
            for (const ReportColumn &c : r.columns) {
                const auto p = c.points.find(size);
                const EntryMetric *found = p == c.points.end() ? nullptr : find_metric(p->second.entry.metrics, m.name);
                cells += ' ' + (found ? metric_number(found->value) : std::string("—")) + " |";
                any = any || found;
            }
            if (any) out << "| " << metric_heading(m) << " | " << format_size(size) << " |" << cells << '\n';
        }
}

}  // namespace

void write_markdown(std::ostream &out, const std::vector<WorkloadReport> &reports) {
    for (const WorkloadReport &r : reports) {
        out << "## " << r.title() << "\n\nMedian compute time (end to end, with transfers, in "
               "parentheses where it differs); speedup over `" << r.baseline
            << "` (compute; end to end).\n\n| size |";
        for (const ReportColumn &c : r.columns) out << ' ' << c.label() << " |";
        out << "\n| ---: |";
        for (size_t i = 0; i < r.columns.size(); ++i) out << " ---: |";
        out << '\n';
        for (uint64_t size : r.sizes) {
            out << "| " << format_size(size) << " |";
            for (const ReportColumn &c : r.columns) {
                const auto p = c.points.find(size);
                if (p == c.points.end()) {
                    out << " — |";
                    continue;
                }
                std::string cell = format_seconds(p->second.compute_s());
                if (p->second.end_to_end_s() > p->second.compute_s() * 1.0001)
                    cell += " (" + format_seconds(p->second.end_to_end_s()) + ")";
                for (const std::string &flag : p->second.figures.flags) cell += " *" + flag + "*";
                if (c.backend != r.baseline) {
                    const auto compute = speedup(r, c, size, false), e2e = speedup(r, c, size, true);
                    if (compute) {
                        cell += "<br>" + format_ratio(compute);
                        if (c.gpu && e2e) cell += "; " + format_ratio(e2e);
                    }
                }
                out << ' ' << cell << " |";
            }
            out << '\n';
        }
        write_metrics_table(out, r);
        if (!r.crossover.empty()) {
            out << "\nCrossover, end to end (the smallest size from which the GPU backend beats "
                   "the best CPU backend at every larger measured size):";
            for (const auto &[label, size] : r.crossover) out << "\n- " << label << ": " << crossover_text(r, size);
            out << '\n';
        }
        out << '\n';
    }
    write_flag_glossary(out, reports);
}

void write_markdown_report(std::ostream &out, const ReportInput &input) {
    std::vector<RunHeader> headers;
    for (const auto &[label, document] : input.labelled) headers.push_back(document.header);
    write_markdown_header(out, headers);
    write_markdown(out, input.reports);
    write_studies_markdown(out, input.reports);
}

}  // namespace gpubench
