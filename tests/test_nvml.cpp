// NVML is optional: without it every GPU reading is absent, never an error.
#include "nvml_probe.hpp"

#include <catch2/catch.hpp>

using namespace gpubench;

TEST_CASE("a GPU state keeps only the readings NVML gave, and flags real slowdowns",
          "[nvml]") {
    GpuState empty;
    CHECK(nlohmann::json(empty).empty());  // all "n/a": nothing to write
    CHECK_FALSE(empty.throttled());

    GpuState s;
    s.sm_clock_mhz = 1980;
    s.power_w = 312.5;
    s.energy_mj = 123456789;
    s.throttle_reasons = 0x1;  // idle: not a slowdown
    CHECK_FALSE(s.throttled());
    s.throttle_reasons = 0x4 | 0x40;  // power cap and hardware thermal slowdown
    CHECK(s.throttled());
    const nlohmann::json j = s;
    CHECK(j["sm_clock_mhz"] == 1980);
    CHECK_FALSE(j.contains("temperature_c"));
    const auto back = j.get<GpuState>();
    CHECK(back.sm_clock_mhz == s.sm_clock_mhz);
    CHECK(back.power_w == s.power_w);
    CHECK(back.energy_mj == s.energy_mj);
    CHECK(back.throttle_reasons == s.throttle_reasons);
    CHECK_FALSE(back.temperature_c.has_value());

    CHECK_FALSE(s.shared());  // not read: not known to be shared
    s.compute_processes = 1;  // the worker alone
    CHECK_FALSE(s.shared());
    s.compute_processes = 2;
    CHECK(s.shared());
    CHECK(nlohmann::json(s).get<GpuState>().compute_processes == 2u);
}

TEST_CASE("opening NVML for a device that is not there says why instead of failing",
          "[nvml]") {
    std::string why;
    // No machine has a GPU at this bus id; without libnvidia-ml.so.1 the reason says that.
    auto probe = NvmlProbe::open("0000:ff:1f.7", why);
    CHECK(probe == nullptr);
    CHECK_FALSE(why.empty());
}
