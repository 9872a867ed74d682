#include "l2_bandwidth.hpp"

#include "cache_files.hpp"
#include "gpu.hpp"

#include <cmath>
#include <cstdlib>
#include <mutex>
#include <string>

namespace gpubench {

namespace {

constexpr const char *cache_name = "gpu-l2-bandwidth.json";
constexpr int cache_format = 1;  // part of the key: a new format measures again

std::string cache_key(const GpuInfo &gpu) {
    return gpu.uuid + " | " + gpu.name + " | format " + std::to_string(cache_format);
}

double cached(const GpuInfo &gpu) {
    const auto file = cache_file(cache_name);
    if (!file) return 0;
    const nlohmann::json doc = read_cache(*file);
    const auto gpus = doc.find("gpus");
    if (gpus == doc.end() || !gpus->is_object()) return 0;
    const auto entry = gpus->find(cache_key(gpu));
    if (entry == gpus->end() || !entry->is_object()) return 0;
    const double rate = entry->value("bytes_per_s", 0.0);
    return std::isfinite(rate) && rate > 0 ? rate : 0;
}

void store(const GpuInfo &gpu, double rate) {
    const auto file = cache_file(cache_name);
    if (!file) return;
    nlohmann::json doc = read_cache(*file);
    if (!doc.contains("gpus") || !doc["gpus"].is_object()) doc = nlohmann::json::object();
    doc["format"] = cache_format;
    doc["gpus"][cache_key(gpu)] = {{"bytes_per_s", rate}, {"l2_bytes", gpu.l2_bytes}};
    write_cache(*file, doc);  // not written: measured again next time
}

std::mutex cache_mutex;

}  // namespace

double l2_bytes_per_s(const GpuInfo &gpu, bool measure) {
    if (!gpu.available || gpu.uuid.empty() || gpu.l2_bytes == 0) return 0;
    std::lock_guard lock(cache_mutex);
    try {
        if (const double rate = cached(gpu); rate > 0) return rate;
        const char *injected = std::getenv("CUDA_INJECTION64_PATH");
        if (!measure || (injected && *injected)) return 0;
        const double rate = measure_l2_read_bytes_per_s(gpu.l2_bytes, gpu.sm_count);
        // The L2 is faster than the memory behind it; a slower figure was slowed by something.
        if (!(rate > gpu.peak_bytes_per_s)) return 0;
        store(gpu, rate);
        return rate;
    } catch (...) {  // a cache that cannot be read or written: as if there were none
        return 0;
    }
}

}  // namespace gpubench
