// The context a results file needs to be compared later: host, build, time.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace gpubench {

// Host name, CPU model, logical cores, OS.
nlohmann::json host_context();

// gpubench version, git revision, build type, compilers.
nlohmann::json build_context();

// Current UTC time as ISO 8601, e.g. "2026-11-23T10:15:00Z"; `compact` gives
// "20261123T101500Z" for file names.
std::string utc_timestamp(bool compact = false);

std::string host_name();
// The CPU model, as /proc/cpuinfo names it ("" where it does not).
std::string cpu_model_name();

}  // namespace gpubench
