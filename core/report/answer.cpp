#include "answer.hpp"

#include "report.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

namespace gpubench {

namespace {

// A size as the answer writes it: whole below 1000, else three digits and k, M, G ("10.6k").
std::string size_text(double size) {
    if (size < 999.5) return std::to_string(uint64_t(std::llround(size)));
    const char *suffixes[] = {"k", "M", "G", "T"};
    int power = 0;
    for (size /= 1000; size >= 999.5 && power < 3; size /= 1000) ++power;
    return format_text(size >= 99.95 ? "%.0f%s" : size >= 9.995 ? "%.1f%s" : "%.2f%s", size, suffixes[power]);
}

// The column answer that answers `compared` best: a GPU that always wins, then the earliest
// crossover, then the one that loses least.
const ColumnAnswer &best_answer(const std::vector<ColumnAnswer> &answers, Compared compared) {
    const auto rank = [&](const ColumnAnswer &a) {
        const Crossover &c = a.of(compared);
        const int order[] = {1, 2, 0, 3};  // from, never, always, unknown
        const bool from = c.verdict == CrossoverVerdict::from;
        return std::make_tuple(order[int(c.verdict)], from ? c.size.value : -c.margin.value);
    };
    const ColumnAnswer *best = &answers.front();
    for (const ColumnAnswer &a : answers)
        if (rank(a) < rank(*best)) best = &a;
    return *best;
}

// The words for one compared figure: "cuda wins from 1.06e+04 (9.1e+03–1.2e+04) keys".
std::string verdict_words(const ColumnAnswer &a, const Crossover &c, const std::string &items) {
    switch (c.verdict) {
    case CrossoverVerdict::from:
        return a.gpu + " wins from " + size_text(c.size.value) + " (" + crossover_interval_text(c) + ")" + items;
    // With the interval where a repeat run could find a crossing (a near tie at an end); none
    // where too few sizes leave no noise estimate (0 degrees of freedom: every size is in reach).
    case CrossoverVerdict::always:
        return a.gpu + " wins at every size from " + size_text(c.smallest) +
               (c.degrees_of_freedom && c.size.hi > c.smallest * (1 + 1e-9) ? " (" + crossover_interval_text(c) + ")"
                                                                               : "") +
               items;
    case CrossoverVerdict::never:
        return "the GPU never wins up to " + size_text(c.largest) +
               (c.degrees_of_freedom && c.size.lo < c.largest * (1 - 1e-9) ? " (" + crossover_interval_text(c) + ")"
                                                                             : "") +
               items;
    case CrossoverVerdict::unknown: break;
    }
    return "no answer (" + c.why + ")";
}

// What the GPU column's entries count: " keys", or "" when they name nothing.
std::string items_of(const WorkloadReport &r, const std::string &gpu) {
    for (const ReportColumn &c : r.columns)
        if (c.label() == gpu && !c.points.empty() && !c.points.begin()->second.entry.item_name.empty())
            return " " + c.points.begin()->second.entry.item_name;
    return "";
}

nlohmann::json estimate_json(const Estimate &e) {
    const auto finite = [](double v) { return std::isinf(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
    return {{"value", finite(e.value)}, {"lo", finite(e.lo)}, {"hi", finite(e.hi)}};
}

nlohmann::json crossover_json(const Crossover &c) {
    nlohmann::json j{{"verdict", verdict_name(c.verdict)}};
    if (c.verdict == CrossoverVerdict::unknown) return j["why"] = c.why, j;
    j.update({{"size", estimate_json(c.size)}, {"smallest", c.smallest}, {"largest", c.largest},
              {"margin", estimate_json(c.margin)}, {"best_cpu", c.best_cpu}, {"replicates", c.replicates},
              {"degrees_of_freedom", c.degrees_of_freedom}, {"runs", c.runs}});
    return j;
}

// A model with its inputs, the medians it was fitted to, so that a reader can fit it again.
nlohmann::json model_json(const CostModel &m, const Series &inputs) {
    nlohmann::json points = nlohmann::json::array();
    for (const FitPoint &p : fit_points(inputs)) points.push_back({p.size, p.figure, p.level});
    return {{"latency", m.latency}, {"exponent", m.exponent}, {"knots", m.knots}, {"slopes", m.slopes},
            {"steps", m.steps}, {"jumps", m.jumps},
            {"parameters", m.parameters}, {"residual_sd", m.residual_sd},
            {"leave_out", {{"sizes", m.leave_out_sizes}, {"median_error", m.leave_out_median_error},
                           {"max_error", m.leave_out_max_error}}},
            {"inputs", std::move(points)}};
}

// Why the entries have no node energy: the first note of one without it.
std::string node_energy_absence(const WorkloadReport &report) {
    for (const ReportColumn &c : report.columns)
        for (const auto &[size, point] : c.points)
            if (!point.figures.node_power_w && !point.figures.node_note.empty())
                return point.figures.node_note.substr(point.figures.node_note.rfind("n/a: ", 0) == 0 ? 5 : 0);
    return "no CPU energy source";
}

}  // namespace

std::string crossover_size_text(const Crossover &c) {
    return c.verdict == CrossoverVerdict::from ? size_text(c.size.value) : verdict_name(c.verdict);
}

std::string crossover_interval_text(const Crossover &c) {
    const std::string lo = c.size.lo > 0 ? size_text(c.size.lo) : "<" + size_text(c.smallest);
    const std::string hi = std::isinf(c.size.hi) ? ">" + size_text(c.largest) : size_text(c.size.hi);
    return lo + "–" + hi;
}

std::string estimate_text(const Estimate &ratio) {
    const auto one = [](double r) { return format_text(r >= 100 ? "%.0f" : r >= 10 ? "%.1f" : "%.2f", r); };
    if (ratio.lo <= 0 && std::isinf(ratio.hi)) return one(ratio.value) + "× (no interval: too few sizes)";
    return one(ratio.value) + "× (" + one(ratio.lo) + "–" + one(ratio.hi) + ")";
}

const char *compared_name(Compared compared) {
    static constexpr const char *names[] = {"compute", "end_to_end", "energy"};
    return names[int(compared)];
}

const CostModel &ColumnModels::of(Compared compared) const {
    return compared == Compared::compute ? compute : compared == Compared::end_to_end ? end_to_end : energy;
}

const Crossover &ColumnAnswer::of(Compared compared) const {
    return compared == Compared::compute ? compute : compared == Compared::end_to_end ? end_to_end : energy;
}

const ColumnAnswer *answer_of(const WorkloadReport &report, const std::string &gpu) {
    for (const ColumnAnswer &a : report.answers)
        if (a.gpu == gpu) return &a;
    return nullptr;
}

Series column_series(const ReportColumn &column, Compared compared) {
    Series series{column.backend, {}};
    const auto add = [&](uint64_t size, const ReportPoint &point) {
        const Timing &t = point.entry.timing;
        std::vector<double> samples;
        if (compared == Compared::compute)
            samples = t.per_launch.samples.empty() ? t.samples.run : t.per_launch.samples;
        if (compared == Compared::end_to_end) samples = end_to_end_samples(t.samples);
        if (compared == Compared::energy && point.figures.node_power_w)  // each run's node energy
            for (double run : t.samples.run) samples.push_back(run * *point.figures.node_power_w);
        if (!samples.empty())
            series.points.push_back({size, std::move(samples), point.entry.ceiling.level,
                                     point.entry.sweep.finished_after_s, point.run});
    };
    for (const auto &[size, point] : column.points) add(size, point);
    for (const ReportPoint &point : column.repeats) add(point.entry.size, point);
    std::stable_sort(series.points.begin(), series.points.end(),
                     [](const SeriesPoint &a, const SeriesPoint &b) { return a.size < b.size; });
    return series;
}

void answer_workload(WorkloadReport &report) {
    // Each column's series of each figure, fitted once: a CPU column meets every GPU column.
    std::vector<std::array<FittedSeries, std::size(all_compared)>> fitted(report.columns.size());
    for (size_t i = 0; i < report.columns.size(); ++i)
        for (Compared compared : all_compared) {
            fitted[i][size_t(compared)] = fit_series(column_series(report.columns[i], compared));
            report.columns[i].models.of(compared) = fitted[i][size_t(compared)].model;
        }
    for (size_t g = 0; g < report.columns.size(); ++g) {
        const ReportColumn &gpu = report.columns[g];
        if (!gpu.gpu) continue;
        ColumnAnswer answer{gpu.label(), {}, {}, {}};
        for (Compared compared : all_compared) {
            std::vector<const FittedSeries *> cpus;
            for (size_t c = 0; c < report.columns.size(); ++c)
                if (!report.columns[c].gpu && report.columns[c].source == gpu.source)
                    cpus.push_back(&fitted[c][size_t(compared)]);
            const FittedSeries &series = fitted[g][size_t(compared)];
            Crossover &crossover = answer.of(compared);
            crossover = find_crossover(series, cpus);
            const auto empty = [](const FittedSeries *s) { return s->series.points.empty(); };
            const bool no_energy = series.series.points.empty() || std::all_of(cpus.begin(), cpus.end(), empty);
            if (cpus.empty()) crossover.why = "no CPU backend was measured";
            else if (compared == Compared::energy && crossover.verdict == CrossoverVerdict::unknown && no_energy)
                crossover.why = "no node energy per result: " + node_energy_absence(report);
        }
        report.answers.push_back(std::move(answer));
    }
}

size_t pooled_runs(const WorkloadReport &report) {
    size_t runs = 1;
    for (const ColumnAnswer &a : report.answers)
        for (Compared compared : all_compared) runs = std::max(runs, a.of(compared).runs);
    return runs;
}

std::string repeat_words(size_t runs) {
    return runs > 1 ? "a repeat of the " + std::to_string(runs) + " runs pooled" : "a repeat run";
}

std::string answer_line(const WorkloadReport &r) {
    if (r.answers.empty()) return "";
    const ColumnAnswer &e2e = best_answer(r.answers, Compared::end_to_end);
    const ColumnAnswer &compute = best_answer(r.answers, Compared::compute);
    if (e2e.end_to_end.verdict == CrossoverVerdict::unknown && compute.compute.verdict == CrossoverVerdict::unknown &&
        e2e.end_to_end.why == compute.compute.why)
        return r.title() + ": no answer (" + compute.compute.why + ").";
    std::string line = r.title() + ": end to end, " + verdict_words(e2e, e2e.end_to_end, "") + "; compute-only, " +
                       verdict_words(compute, compute.compute, items_of(r, compute.gpu));
    if (const Crossover &c = compute.compute; c.verdict != CrossoverVerdict::unknown)
        line += c.margin.value >= 1 ? ", by " + estimate_text(c.margin) + " at " + size_text(c.largest)
                                    : ", taking " +
                                          estimate_text({1 / c.margin.value, 1 / c.margin.hi, 1 / c.margin.lo}) +
                                          " as long at " + size_text(c.largest);
    const Crossover &energy = compute.energy;
    switch (energy.verdict) {
    case CrossoverVerdict::from: return line + ", and uses less energy from " + size_text(energy.size.value) + " " +
                               "(" + crossover_interval_text(energy) + ")" + ".";
    case CrossoverVerdict::always: return line + ", and uses less energy at every size.";
    case CrossoverVerdict::never: return line + ", and never uses less energy up to " + size_text(energy.largest) + ".";
    case CrossoverVerdict::unknown: break;
    }
    // The reason's first clause: its parentheses are the tables' to give.
    return line + "; no energy crossover (" + energy.why.substr(0, energy.why.find(" (")) + ").";
}

nlohmann::json answers_json(const WorkloadReport &report) {
    nlohmann::json answers = nlohmann::json::array(), models = nlohmann::json::object();
    for (const ColumnAnswer &a : report.answers) {
        nlohmann::json each{{"gpu", a.gpu}};
        for (Compared compared : all_compared) each[compared_name(compared)] = crossover_json(a.of(compared));
        answers.push_back(std::move(each));
    }
    for (const ReportColumn &c : report.columns)
        for (Compared compared : all_compared)
            if (c.models.of(compared).fitted())
                models[c.label()][compared_name(compared)] =
                    model_json(c.models.of(compared), column_series(c, compared));
    return {{"line", answer_line(report)}, {"intervals_for", repeat_words(pooled_runs(report))},
            {"answers", std::move(answers)}, {"models", std::move(models)}};
}

}  // namespace gpubench
