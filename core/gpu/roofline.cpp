#include "roofline.hpp"

#include "gpu.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpubench {

const char *math_name(gpubench_math math) {
    // By GPUBENCH_MATH_FP32 (0) .. GPUBENCH_MATH_TENSOR_INT8 (5).
    static const char *const names[math_kinds] = {"fp32",           "fp64",       "tf32 tensor",
                                                  "fp16/bf16 tensor", "fp8 tensor", "int8 tensor"};
    return math >= 0 && math < math_kinds ? names[math] : "unknown";
}

gpubench_math math_from_name(const std::string &name) {
    for (int m = 0; m < math_kinds; ++m)
        if (name == math_name(m)) return m;
    return GPUBENCH_MATH_FP32;
}

double Roofline::flops_for(gpubench_math math) const {
    return math >= 0 && math < math_kinds ? flops[static_cast<size_t>(math)] : 0;
}

MemoryLevel Roofline::level_for(double bytes, bool caches_flushed) const {
    if (levels.empty())
        return !caches_flushed && bytes <= static_cast<double>(cache_bytes)
                   ? MemoryLevel{"cache", cache_bytes, 0, margin}
                   : MemoryLevel{"memory", 0, bytes_per_s, margin};
    if (caches_flushed) return levels.back();
    size_t k = 0;  // the smallest level that holds the working set
    while (k + 1 < levels.size() && levels[k].capacity != 0 &&
           bytes > static_cast<double>(levels[k].capacity))
        ++k;
    MemoryLevel held = levels[k];
    if (k == 0 || !(held.bytes_per_s > 0) || !(bytes > 0)) return held;  // no faster level
    // The part of it the faster levels hold comes at their speed: a working set just beyond
    // the L2 runs mostly from the L2. The best time per byte counts each part at its level's
    // rate (a faster level of unknown rate: no time at all).
    double seconds = 0, below = 0;
    for (size_t j = 0; j <= k; ++j) {
        const double upto = j == k ? bytes : std::min(bytes, static_cast<double>(levels[j].capacity));
        if (levels[j].bytes_per_s > 0) seconds += std::max(0.0, upto - below) / levels[j].bytes_per_s;
        below = std::max(below, upto);
    }
    held.bytes_per_s = seconds > 0 ? bytes / seconds : 0;
    return held;
}

MemoryLevel Roofline::interconnect_level() const {
    if (!interconnect.known()) return {"interconnect", 0, 0, 0};
    return {interconnect.name, 0, interconnect.bytes_per_s, interconnect.margin};
}

// From NVIDIA's architecture whitepapers.
ArchitectureRates architecture_rates(int major, int minor) {
    switch (major * 10 + minor) {
        case 70: return {64, 32, 0, 0, 1024, 0, 0};              // V100
        case 75: return {64, 2, 0, 0, 1024, 0, 2048};            // T4, RTX 20
        case 80: return {64, 32, 128, 1024, 2048, 0, 4096};     // A100
        case 86: case 87: return {128, 2, 0, 512, 1024, 0, 2048};
        case 89: return {128, 2, 0, 512, 1024, 2048, 2048};      // L40, RTX 40
        case 90: return {128, 64, 256, 2048, 4096, 8192, 8192};  // H100, H200
        default: return {0, 0, 0, 0, 0, 0, 0};
    }
}

Roofline gpu_roofline(const GpuInfo &gpu) {
    Roofline r;
    if (!gpu.available) return r;
    const ArchitectureRates t = architecture_rates(gpu.compute_major, gpu.compute_minor);
    const double sm_hz = gpu.sm_count * gpu.boost_clock_hz;  // SM-cycles per second
    r.flops[GPUBENCH_MATH_FP32] = gpu.peak_fp32_flops;
    r.flops[GPUBENCH_MATH_FP64] = std::max(gpu.peak_fp64_flops, sm_hz * t.tensor_fp64);
    r.flops[GPUBENCH_MATH_TENSOR_TF32] = sm_hz * t.tf32;
    r.flops[GPUBENCH_MATH_TENSOR_FP16] = sm_hz * t.fp16;
    r.flops[GPUBENCH_MATH_TENSOR_FP8] = sm_hz * t.fp8;
    r.flops[GPUBENCH_MATH_TENSOR_INT8] = sm_hz * t.int8;
    r.bytes_per_s = gpu.peak_bytes_per_s;
    r.cache_bytes = gpu.l2_bytes;
    r.margin = 0.05;
    // The L2 rate is a simple read kernel's: a tuned kernel, or data in the near half of a
    // split L2, may beat it by tens of percent, so it is held to 50% more than measured.
    if (gpu.l2_bytes > 0) r.levels.push_back({"L2", gpu.l2_bytes, gpu.l2_bytes_per_s, 0.5});
    // HBM stacks sit on wide buses (4096-6144 bits); GDDR cards have 128-512.
    r.levels.push_back({gpu.memory_bus_bits >= 2048 ? "HBM" : "DRAM", 0, r.bytes_per_s, r.margin});
    r.source = gpu.name + ": device attributes (boost clock, memory clock x bus width) and "
                          "dense tensor rates of compute capability " +
               std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor);
    return r;
}

nlohmann::json memory_level_json(const MemoryLevel &level) {
    return {{"name", level.name},
            {"capacity", level.capacity},
            {"bytes_per_s", level.bytes_per_s},
            {"margin", level.margin}};
}

MemoryLevel memory_level_from_json(const nlohmann::json &j) {
    MemoryLevel level{j.at("name").get<std::string>(), j.at("capacity").get<uint64_t>(),
                      j.at("bytes_per_s").get<double>(), j.at("margin").get<double>()};
    if (!(level.bytes_per_s >= 0) || !(level.margin >= 0))
        throw std::invalid_argument("a memory level's bandwidth and margin are >= 0");
    return level;
}

nlohmann::json roofline_json(const Roofline &r) {
    nlohmann::json levels = nlohmann::json::array();
    for (const MemoryLevel &level : r.levels) levels.push_back(memory_level_json(level));
    nlohmann::json flops = nlohmann::json::object();
    for (int m = 0; m < math_kinds; ++m)
        if (r.flops[static_cast<size_t>(m)] > 0) flops[math_name(m)] = r.flops[static_cast<size_t>(m)];
    nlohmann::json json = {{"flops", flops},
                           {"bytes_per_s", r.bytes_per_s},
                           {"cache_bytes", r.cache_bytes},
                           {"margin", r.margin},
                           {"source", r.source},
                           {"levels", levels}};
    if (!r.interconnect.source.empty()) json["interconnect"] = interconnect_json(r.interconnect);
    return json;
}

Roofline roofline_from_json(const nlohmann::json &j) {
    Roofline r;
    for (int m = 0; m < math_kinds; ++m)
        r.flops[static_cast<size_t>(m)] = j.at("flops").value(math_name(m), 0.0);
    r.bytes_per_s = j.at("bytes_per_s").get<double>();
    r.cache_bytes = j.at("cache_bytes").get<uint64_t>();
    r.margin = j.at("margin").get<double>();
    r.source = j.at("source").get<std::string>();
    for (const nlohmann::json &level : j.value("levels", nlohmann::json::array()))
        r.levels.push_back(memory_level_from_json(level));
    if (const auto interconnect = j.find("interconnect"); interconnect != j.end())
        r.interconnect = interconnect_from_json(*interconnect);
    return r;
}

}  // namespace gpubench
