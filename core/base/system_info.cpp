#include "system_info.hpp"

#include "build_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

namespace gpubench {

std::string host_name() {
    char name[256] = "";
    if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
    return name;
}

std::string cpu_model_name() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.rfind("model name", 0) != 0) continue;
        auto colon = line.find(':');
        if (colon == std::string::npos) break;
        auto first = line.find_first_not_of(" \t", colon + 1);
        return first == std::string::npos ? "" : line.substr(first);
    }
    return "";
}

nlohmann::json host_context() {
    utsname os{};
    uname(&os);
    const std::string cpu_model = cpu_model_name();
    return {{"host_name", host_name()},
            {"cpu_model", cpu_model.empty() ? "unknown" : cpu_model},
            {"logical_cores", std::thread::hardware_concurrency()},
            {"os", std::string(os.sysname) + " " + os.release + " " + os.machine}};
}

nlohmann::json build_context() {
    return {{"gpubench_version", GPUBENCH_VERSION},
            {"git_revision", GPUBENCH_GIT_REVISION},
            {"build_type", GPUBENCH_BUILD_TYPE},
            {"cxx_compiler", GPUBENCH_CXX_COMPILER},
            {"cuda_compiler", GPUBENCH_CUDA_COMPILER},
            {"plugin_abi", std::to_string(GPUBENCH_ABI_MAJOR) + "." +
                               std::to_string(GPUBENCH_ABI_MINOR)}};
}

std::string utc_timestamp(bool compact) {
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace gpubench
