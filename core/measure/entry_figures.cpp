#include "entry_figures.hpp"

#include <algorithm>

namespace gpubench {

EntryFigures entry_figures(const EntryResult &e) {
    EntryFigures f;
    f.run = summarize(e.run_s);
    f.compute = e.per_launch.run_s.empty() ? f.run : summarize(e.per_launch.run_s);
    f.upload = summarize(e.upload_s);
    f.download = summarize(e.download_s);
    std::vector<double> total = e.run_s;
    if (e.upload_s.size() == total.size()) total = add_samples(total, e.upload_s);
    if (e.download_s.size() == total.size()) total = add_samples(total, e.download_s);
    f.end_to_end = summarize(total);
    if (f.compute.median > 0) {
        f.gflops = e.work.flops / f.compute.median * 1e-9;
        f.gbytes_per_s = e.work.bytes / f.compute.median * 1e-9;
        f.items_per_s = e.work.items / f.compute.median;
    }
    const double compute = e.peak_flops > 0 ? f.gflops * 1e9 / e.peak_flops : 0;
    const double memory = e.peak_bytes_per_s > 0 ? f.gbytes_per_s * 1e9 / e.peak_bytes_per_s : 0;
    if (compute > 0 || memory > 0) {
        f.percent_of_peak = 100 * std::max(compute, memory);
        f.roofline_bound = compute >= memory ? "compute" : "memory";
        if (f.roofline_bound == "memory") f.peak_level = e.peak_level;
    }
    gpubench_headline pick = e.headline;
    if (pick == GPUBENCH_HEADLINE_AUTO || pick > GPUBENCH_HEADLINE_ITEMS)
        pick = e.work.flops > 0   ? GPUBENCH_HEADLINE_FLOPS
               : e.work.bytes > 0 ? GPUBENCH_HEADLINE_BYTES
               : e.work.items > 0 ? GPUBENCH_HEADLINE_ITEMS
                                  : GPUBENCH_HEADLINE_AUTO;
    switch (pick) {
        case GPUBENCH_HEADLINE_FLOPS: f.headline = "gflops", f.headline_value = f.gflops; break;
        case GPUBENCH_HEADLINE_BYTES:
            f.headline = "gbytes_per_s", f.headline_value = f.gbytes_per_s;
            break;
        case GPUBENCH_HEADLINE_ITEMS:
            f.headline = "items_per_s", f.headline_value = f.items_per_s;
            break;
        default: break;
    }
    return f;
}

}  // namespace gpubench
