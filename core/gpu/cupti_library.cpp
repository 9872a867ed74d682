#include "cupti_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

// Where CUPTI is looked for: the loader's path first, then the toolkit's usual places
// (CUDA_HOME, /usr/local/cuda), then where the build found it.
std::vector<std::string> cupti_candidates() {
    const std::string file = "libcupti.so." + std::to_string(CUPTI_API_VERSION / 10000);
    std::vector<std::string> candidates{file};
    for (const char *root : {static_cast<const char *>(std::getenv("CUDA_HOME")), "/usr/local/cuda"})
        for (const char *dir : {"/lib64/", "/lib/", "/extras/CUPTI/lib64/"})
            if (root) candidates.push_back(root + std::string(dir) + file);
#ifdef GPUBENCH_CUPTI_DIR
    candidates.push_back(std::string(GPUBENCH_CUPTI_DIR) + "/" + file);
#endif
    return candidates;
}

// Points `function` at `name` in `library`; false where it lacks it.
template <class F>
bool resolve(void *library, F &function, const char *name) {
    function = reinterpret_cast<F>(dlsym(library, name));
    return function != nullptr;
}

// An API struct with each entry point of its LIST resolved in `library`; nullopt where it
// lacks one.
#define GPUBENCH_CUPTI_RESOLVE(field, symbol) &&resolve(library, resolved.field, #symbol)
#define GPUBENCH_CUPTI_RESOLVED(Api, LIST)                                  \
    [library] {                                                             \
        Api resolved{};                                                     \
        const bool found = true LIST(GPUBENCH_CUPTI_RESOLVE);               \
        return found ? std::optional(resolved) : std::nullopt;              \
    }()

// The entry points of `library` (opened from `file`) if it is a CUPTI of the headers' version.
const CuptiApi *entry_points(void *library, const std::string &file, std::string &failure) {
    static CuptiApi api;
    decltype(&cuptiGetVersion) get_version = nullptr;
    uint32_t version = 0;
    if (!resolve(library, get_version, "cuptiGetVersion") || get_version(&version) != CUPTI_SUCCESS ||
        !resolve(library, api.result_string, "cuptiGetResultString")) {
        failure = file + " is no CUPTI (no cuptiGetVersion or cuptiGetResultString)";
        return nullptr;
    }
    if (version / 10000 != CUPTI_API_VERSION / 10000) {
        failure = "CUPTI API version " + std::to_string(version) + ", gpubench was built for " +
                  std::to_string(CUPTI_API_VERSION);
        return nullptr;
    }
    api.version = std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100);
    api.activity = GPUBENCH_CUPTI_RESOLVED(CuptiActivityApi, GPUBENCH_CUPTI_ACTIVITY);
    api.range_profiler = GPUBENCH_CUPTI_RESOLVED(CuptiRangeProfilerApi, GPUBENCH_CUPTI_RANGE_PROFILER);
    api.attach = GPUBENCH_CUPTI_RESOLVED(CuptiAttachApi, GPUBENCH_CUPTI_ATTACH);
    return &api;
}

}  // namespace

const CuptiApi *cupti_api(std::string &why_not) {
    static std::string failure;
    static const CuptiApi *const api = []() -> const CuptiApi * {
        std::string tried;
        for (const std::string &candidate : cupti_candidates()) {
            if (void *found = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))
                return entry_points(found, candidate, failure);
            tried += (tried.empty() ? "" : ", ") + candidate;
        }
        failure = "CUPTI not found (tried " + tried + ")";
        return nullptr;
    }();
    why_not = api ? "" : failure;
    return api;
}

std::string cupti_error_text(const CuptiApi &api, CUptiResult result) {
    if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        return "profiling is restricted to administrators on this machine (the driver's "
               "NVreg_RestrictProfilingToAdminUsers; https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
    const char *text = nullptr;
    api.result_string(result, &text);
    return text ? text : "CUPTI error " + std::to_string(result);
}

void cupti_check(const CuptiApi &api, CUptiResult result, const char *call) {
    if (result != CUPTI_SUCCESS)
        throw std::runtime_error(std::string(call) + ": " + cupti_error_text(api, result));
}

}  // namespace gpubench
