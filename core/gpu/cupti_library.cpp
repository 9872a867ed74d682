#include "cupti_library.hpp"

#include <cupti.h>

#include <cstdlib>
#include <vector>

namespace gpubench {
namespace {

// Where CUPTI is looked for: the loader's path first, then the toolkit's usual places
// (CUDA_HOME, /usr/local/cuda), then where the build found it.
std::vector<std::string> cupti_candidates() {
    const std::string file = "libcupti.so." + std::to_string(CUPTI_API_VERSION / 10000);
    std::vector<std::string> candidates{file};
    std::vector<std::string> roots;
    if (const char *home = std::getenv("CUDA_HOME")) roots.push_back(home);
    roots.push_back("/usr/local/cuda");
    for (const std::string &root : roots)
        for (const char *dir : {"/lib64/", "/lib/", "/extras/CUPTI/lib64/"})
            candidates.push_back(root + dir + file);
#ifdef GPUBENCH_CUPTI_DIR
    candidates.push_back(std::string(GPUBENCH_CUPTI_DIR) + "/" + file);
#endif
    return candidates;
}

}  // namespace

void *cupti_library(std::string &why_not) {
    static std::string failure;
    static void *const library = []() -> void * {
        std::string tried;
        for (const std::string &candidate : cupti_candidates()) {
            if (void *found = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
                decltype(&cuptiGetVersion) get_version = nullptr;
                uint32_t version = 0;
                if (!cupti_symbol(found, get_version, "cuptiGetVersion") || get_version(&version) != CUPTI_SUCCESS) {
                    failure = candidate + " is no CUPTI (no cuptiGetVersion)";
                    return nullptr;
                }
                if (version / 10000 != CUPTI_API_VERSION / 10000) {
                    failure = "CUPTI API version " + std::to_string(version) + ", gpubench was built for " +
                              std::to_string(CUPTI_API_VERSION);
                    return nullptr;
                }
                return found;
            }
            tried += (tried.empty() ? "" : ", ") + candidate;
        }
        failure = "CUPTI not found (tried " + tried + ")";
        return nullptr;
    }();
    why_not = library ? "" : failure;
    return library;
}

}  // namespace gpubench
