// The peak of a GPU's links to other GPUs, per direction: what bytes a plugin declares as
// crossing them (GPUBENCH_WORK_BYTES_INTERCONNECT) are held to. From NVML: the active NVLink
// links x their version's rate, else the PCIe link at its best generation and width. Where
// neither can be read there is no peak, never a guessed one.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace gpubench {

// NVML's answers about one GPU's links (tests make them up); absent: not read.
struct LinkAnswers {
    std::string unreadable;        // why NVML could not be asked at all; "" when it could
    int nvlinks_answered = 0;      // links whose state nvmlDeviceGetNvLinkState gave
    int nvlinks_active = 0;        // of those, active (NVML_FEATURE_ENABLED)
    std::optional<unsigned> nvlink_version;     // the first active link's nvmlNvlinkVersion_t
    std::optional<unsigned> nvlink_speed_mbps;  // the active links' line rate, MB/s per direction
    std::optional<unsigned> pcie_generation, pcie_width;  // the most with this device and system
    std::optional<unsigned> pcie_current_generation, pcie_current_width;  // idle links train down
};

struct InterconnectPeak {
    std::string name;        // "NVLink" or "PCIe"; "" when unknown
    double bytes_per_s = 0;  // per GPU and direction; 0 = unknown
    double margin = 0;       // a rate up to (1 + margin) x bytes_per_s is still accepted
    std::string source;      // how it was read, or why there is none
    bool known() const { return bytes_per_s > 0; }
};

// A known peak's margin: NVLink's line rate is 6% above the data rate its version is rated
// for (26.56 against 25 GB/s per link), and the rating is what is held against.
inline constexpr double interconnect_margin = 0.10;

// Pure, so that every case is tested with made-up answers.
InterconnectPeak interconnect_peak(const LinkAnswers &answers);

nlohmann::json interconnect_json(const InterconnectPeak &peak);
InterconnectPeak interconnect_from_json(const nlohmann::json &json);  // throws on a bad object

}  // namespace gpubench
