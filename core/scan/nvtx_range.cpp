#include "nvtx_range.hpp"

#include "text_format.hpp"

#if GPUBENCH_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace gpubench {

std::string nvtx_entry_label(const std::string &plugin, uint64_t size, const std::string &params) {
    return plugin + " " + format_size(size) + (params.empty() ? "" : " " + params);
}

const char *EntryRanges::name(const char *phase) {
    if (label_.empty()) return nullptr;
    const std::string key = (warm_up_ ? "warmup " : "") + std::string(phase);
    for (const auto &[known, name] : names_)
        if (known == key) return name.c_str();
    return names_.emplace_back(key, label_ + " " + key).second.c_str();
}

#if GPUBENCH_HAVE_NVTX
NvtxRange::NvtxRange(const char *name) : pushed_(name != nullptr) {
    if (pushed_) nvtxRangePushA(name);
}
NvtxRange::~NvtxRange() {
    if (pushed_) nvtxRangePop();
}
bool nvtx_built_in() { return true; }
#else
NvtxRange::NvtxRange(const char *) {}
NvtxRange::~NvtxRange() {}
bool nvtx_built_in() { return false; }
#endif

}  // namespace gpubench
