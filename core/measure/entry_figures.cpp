#include "entry_figures.hpp"

#include "host_resources.hpp"
#include "text_format.hpp"
#include "work_mismatch.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace gpubench {

namespace {

void throughput(const Measurement &e, EntryFigures &f) {
    if (f.compute.median > 0) {
        f.gflops = e.work.flops / f.compute.median * 1e-9;
        f.gbytes_per_s = e.work.bytes / f.compute.median * 1e-9;
        f.items_per_s = e.work.items / f.compute.median;
    }
    const double compute = e.ceiling.flops > 0 ? f.gflops * 1e9 / e.ceiling.flops : 0;
    const double memory = e.ceiling.bytes_per_s > 0 ? f.gbytes_per_s * 1e9 / e.ceiling.bytes_per_s : 0;
    if (compute > 0 || memory > 0) {
        f.percent_of_peak = 100 * std::max(compute, memory);
        f.roofline_bound = compute >= memory ? "compute" : "memory";
        if (f.roofline_bound == "memory") f.peak_level = e.ceiling.level;
    }
    gpubench_headline pick = e.headline;
    if (pick == GPUBENCH_HEADLINE_AUTO || pick > GPUBENCH_HEADLINE_ITEMS)
        pick = e.work.flops > 0   ? GPUBENCH_HEADLINE_FLOPS
               : e.work.bytes > 0 ? GPUBENCH_HEADLINE_BYTES
               : e.work.items > 0 ? GPUBENCH_HEADLINE_ITEMS
                                  : GPUBENCH_HEADLINE_AUTO;
    // Each headline's figure, by gpubench_headline (GPUBENCH_HEADLINE_AUTO 0 to ITEMS 3).
    const std::pair<const char *, double> figures[] = {
        {"", 0}, {"gflops", f.gflops}, {"gbytes_per_s", f.gbytes_per_s}, {"items_per_s", f.items_per_s}};
    if (pick >= GPUBENCH_HEADLINE_AUTO) std::tie(f.headline, f.headline_value) = figures[pick];
}

void energy(const Measurement &e, EntryFigures &f) {
    const EntryResources &r = e.resources;
    const std::optional<EnergyWindow> window = r.gpu_board_energy();
    const double least_s = r.gpu_energy ? EntryResources::energy_window_min_s
                                        : EntryResources::earlier_energy_window_min_s;
    f.energy_note = r.gpu_energy_note;
    if (window && window->seconds >= least_s && window->joules > 0) {
        const double watts = window->joules / window->seconds;
        const double per_run = watts * f.run.median;
        f.energy = EntryEnergy{window->joules, watts, per_run, per_run > 0 ? e.work.flops * 1e-9 / per_run : 0.0,
                               window->seconds};
    } else if (window || (r.gpu_after && r.gpu_after->energy_mj)) {
        const double lasted = window ? window->seconds : r.sampling_wall_s;
        f.energy_note = (lasted >= least_s ? format_text("n/a: NVML's energy counter did not advance in %.3g s", lasted)
                                           : format_text("n/a: its energy window lasted %.3g s, too short for NVML's "
                                                         "energy counter (%.2g s at least)", lasted, least_s)) +
                        (f.energy_note.empty() ? "" : "; " + f.energy_note);
    }
}

// The node's power: the CPU packages' + the GPU board's (entry_figures.hpp).
void node_energy(const Measurement &e, const RunBasis &run, EntryFigures &f) {
    const EntryResources &r = e.resources;
    const std::optional<EnergyWindow> &cpu = r.cpu_energy;
    if (cpu && cpu->seconds >= EntryResources::cpu_energy_window_min_s) {
        f.cpu_power_w = cpu->joules / cpu->seconds;
        f.cpu_energy_per_run_j = *f.cpu_power_w * f.run.median;
    }
    const auto none = [&](const std::string &why) { f.node_note = "n/a: " + why; };
    if (!f.cpu_power_w)
        return none(cpu ? format_text("the CPU packages' window lasted %.3g s, under the %.2g s their counters need",
                                      cpu->seconds, EntryResources::cpu_energy_window_min_s)
                    : !r.cpu_energy_note.empty() ? r.cpu_energy_note
                                                 : "no CPU package energy counter (the header's energy.cpu says why)");
    if (e.cuda_devices.size() > 1)
        return none(std::to_string(e.cuda_devices.size()) + " GPUs ran it, and NVML was read on the first alone");
    if (!e.cuda_devices.empty()) {
        if (!f.energy)
            return none("no GPU board energy (" + (f.energy_note.empty() ? "no counter" : f.energy_note) + ")");
        std::tie(f.node_gpu_power_w, f.node_gpu) = std::pair{f.energy->mean_power_w, "measured"};
    } else if (!run.has_gpu) {
        f.node_gpu = "none";
    } else if (run.gpu_idle_w) {
        std::tie(f.node_gpu_power_w, f.node_gpu) = std::pair{*run.gpu_idle_w, "idle"};
    } else {
        return none("the GPU board's idle power is not known (" + run.gpu_idle_note + ")");
    }
    f.node_power_w = *f.cpu_power_w + f.node_gpu_power_w;
    f.node_energy_per_run_j = *f.node_power_w * f.run.median;
}

// The scalar figures as metrics, each one line: what every writer's metric columns add.
void figure_metrics(const Measurement &e, EntryFigures &f) {
    f.metrics = e.metrics;
    const auto add = [&](Metric figure) { f.metrics.push_back({std::move(figure), true}); };
    if (f.headline_value > 0)
        add({f.headline, f.headline_value, headline_unit(f.headline, e.item_name), "", GPUBENCH_BETTER_HIGHER});
    if (!f.roofline_bound.empty())
        add({"percent_of_peak", f.percent_of_peak, "%",
             (f.peak_level.empty() ? "" : f.peak_level + " ") + f.roofline_bound + " bound", GPUBENCH_BETTER_HIGHER});
    if (e.resources.watched())
        add({"cpu_percent", f.cpu_percent, "%", "of the host's logical cores", GPUBENCH_BETTER_UNSTATED});
    if (f.energy) add({"energy_per_run_j", f.energy->per_run_j, "J", "", GPUBENCH_BETTER_LOWER});
    if (f.cpu_energy_per_run_j)
        add({"cpu_energy_per_run_j", *f.cpu_energy_per_run_j, "J", "CPU packages", GPUBENCH_BETTER_LOWER});
    if (f.node_energy_per_run_j)
        add({"node_energy_per_run_j", *f.node_energy_per_run_j, "J",
             f.node_gpu == "none"   ? "CPU packages (no GPU)"
             : f.node_gpu == "idle" ? "CPU packages + GPU board at idle"
                                    : "CPU packages + GPU board",
             GPUBENCH_BETTER_LOWER});
    if (f.energy && f.energy->gflops_per_j > 0)
        add({"gflops_per_j", f.energy->gflops_per_j, "GFLOP/J", "", GPUBENCH_BETTER_HIGHER});
}

}  // namespace

std::string headline_unit(const std::string &headline, const std::string &item_name) {
    if (headline == "gflops") return "GFLOP/s";
    if (headline == "gbytes_per_s") return "GB/s";
    if (headline == "items_per_s") return (item_name.empty() ? "items" : item_name) + "/s";
    return "";
}

std::vector<double> end_to_end_samples(const Timing::Samples &s) {
    std::vector<double> total = s.run;
    if (s.upload.size() == total.size()) total = add_samples(total, s.upload);
    if (s.download.size() == total.size()) total = add_samples(total, s.download);
    return total;
}

RunBasis this_host_run() {
    return {logical_cores(), true, std::nullopt, "measured as a sweep starts: its results file's header has it"};
}

EntryFigures entry_figures(const Measurement &e, const RunBasis &run) {
    EntryFigures f;
    const Timing::Samples &s = e.timing.samples;
    f.run = summarize(s.run);
    f.compute = e.timing.per_launch.samples.empty() ? f.run : summarize(e.timing.per_launch.samples);
    f.upload = summarize(s.upload);
    f.download = summarize(s.download);
    f.end_to_end = summarize(end_to_end_samples(s));
    if (!s.run_host.empty()) f.run_host = summarize(s.run_host);
    if (!s.run_host_in_cycle.empty()) f.run_host_in_cycle = summarize(s.run_host_in_cycle);
    throughput(e, f);
    f.cpu_cores = e.resources.cpu_cores();
    f.cpu_percent = run.logical_cores > 0 ? 100.0 * f.cpu_cores / double(run.logical_cores) : 0.0;
    energy(e, f);
    node_energy(e, run, f);
    f.flags = entry_flags(e);
    f.work_mismatch = counted_work_mismatch(e);
    figure_metrics(e, f);
    return f;
}

}  // namespace gpubench
