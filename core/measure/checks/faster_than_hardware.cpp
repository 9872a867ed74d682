#include "check.hpp"

#include "entry_figures.hpp"
#include "text_format.hpp"

namespace gpubench {

// Impossible throughput: the timing or the declared work is wrong. Bytes are held to the
// level the working set fits in (hold_to_level); none where that level's bandwidth is unknown.
std::string faster_than_hardware(const Measurement &e) {
    const EntryFigures f = entry_figures(e, this_host_run());
    const double flops = f.gflops * 1e9, bytes = f.gbytes_per_s * 1e9;
    const std::string level = e.ceiling.level.empty() ? "peak" : e.ceiling.level;
    if (e.ceiling.flops > 0 && flops > (1 + e.ceiling.margin) * e.ceiling.flops)
        return format_text("faster than the hardware: %.4g GFLOP/s is %.0f%% of the peak %.4g GFLOP/s "
                           "(%s) and more than the %.0f%% margin allows: the timing or the declared "
                           "work is wrong", flops * 1e-9, 100 * flops / e.ceiling.flops,
                           e.ceiling.flops * 1e-9, math_name(e.work.math), 100 * e.ceiling.margin);
    if (e.ceiling.bytes_per_s > 0 && bytes > (1 + e.ceiling.level_margin) * e.ceiling.bytes_per_s)
        return format_text("faster than the hardware: %.4g GB/s is %.0f%% of the %s bandwidth "
                           "%.4g GB/s and more than the %.0f%% margin allows: the timing or the "
                           "declared work is wrong", bytes * 1e-9, 100 * bytes / e.ceiling.bytes_per_s,
                           level.c_str(), e.ceiling.bytes_per_s * 1e-9, 100 * e.ceiling.level_margin);
    return "";
}

extern const Check faster_than_hardware_check{
    "faster_than_hardware", CheckVerdict::invalid, "a throughput above the hardware's peak",
    "the headline FLOP rate above (1 + margin) × the peak for the entry's declared math "
    "(`gpubench_work.math`: FP32, FP64, TF32/FP16/FP8/INT8 tensor), or the byte rate above (1 + "
    "the level's margin) × the bandwidth of the **memory level its working set fits in** "
    "([below](#the-roofline-by-memory-level)), or of the **interconnect** for bytes declared as "
    "crossing it ([below](#the-interconnects-peak); where its peak is unknown, none). GPU peaks: "
    "device attributes (SMs × boost clock × lanes × 2; memory clock × bus width × 2) and "
    "per-architecture dense tensor rates, margin 5%. CPU peaks: **measured** once per machine "
    "(FMA loops of the widest ISA on every core, per-level cache streams, a streaming-store triad"
    " and memcpy over arrays beyond the last-level cache, best of several repetitions), cached in"
    " `~/.cache/gpubench/host-peaks.json` (`$GPUBENCH_CACHE_DIR`, `$XDG_CACHE_HOME`) only when "
    "nothing else kept the host busy meanwhile; margin 20% (100% for a measurement taken beside "
    "other work)",
    "`faster than the hardware: 92 GB/s is 149% of the DRAM bandwidth…: the timing or the "
    "declared work is wrong`",
    faster_than_hardware};

}  // namespace gpubench
