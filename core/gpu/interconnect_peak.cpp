#include "interconnect_peak.hpp"

#include "text_format.hpp"

#include <iterator>
#include <stdexcept>

namespace gpubench {
namespace {

std::string gbytes(double bytes_per_s) { return format_text("%.4g GB/s", bytes_per_s * 1e-9); }

// Each nvmlNvlinkVersion_t's NVLink version and NVIDIA's data rate of one link per direction:
// 20 GB/s for NVLink 1 (P100), 25 for 2 to 4 (V100 to H100: 18 links x 25, "900 GB/s" both
// ways), 50 for 5. Rate 0: a version not known here.
struct NvlinkVersion {
    const char *name;
    double rate;
};
NvlinkVersion nvlink_version(unsigned version) {
    constexpr NvlinkVersion known[] = {{"?", 0},     {"1.0", 20e9}, {"2.0", 25e9}, {"2.2", 25e9},
                                       {"3.0", 25e9}, {"3.1", 25e9}, {"4.0", 25e9}, {"5.0", 50e9}};
    return version < std::size(known) ? known[version] : NvlinkVersion{"?", 0};
}

// The largest rated per-link rate at or below a line rate: some drivers report a newer
// version than the chip's link has (an H100 as NVLink 5.0), which its line rate gives away.
double rated_at_most(double line_rate) {
    for (double rate : {50e9, 25e9, 20e9})
        if (rate <= line_rate) return rate;
    return line_rate;
}

// One PCIe lane's data rate per direction: the transfer rate times the encoding (8b/10b to
// Gen2, 128b/130b from Gen3; Gen6's FLIT overhead not counted).
double pcie_lane_rate(unsigned generation) {
    constexpr double transfers[] = {0, 2.5e9, 5e9, 8e9, 16e9, 32e9, 64e9};  // per second, by generation
    if (generation == 0 || generation >= std::size(transfers)) return 0;
    const double t = transfers[generation];
    return generation <= 2 ? t * 0.8 / 8 : generation <= 5 ? t * 128 / 130 / 8 : t / 8;
}

InterconnectPeak nvlink_peak(const LinkAnswers &a) {
    InterconnectPeak peak;
    const std::string links = std::to_string(a.nvlinks_active) + " of " + std::to_string(a.nvlinks_answered) +
                              " NVLink links active";
    const NvlinkVersion version = nvlink_version(a.nvlink_version.value_or(0));  // 0 (not read): no rate
    const double line = a.nvlink_speed_mbps ? *a.nvlink_speed_mbps * 1e6 : 0;
    double rate = version.rate;
    std::string how;
    if (rate > 0) how = "NVLink " + std::string(version.name) + ", rated " + gbytes(rate) + " per link and direction";
    if (line > 0 && (rate == 0 || rate > line)) {
        rate = rated_at_most(line);
        how += (how.empty() ? "" : ", above ") + std::string("the links' line rate ") + gbytes(line) +
               (rate < line ? ": rated " + gbytes(rate) : ": taken as the rate");
    }
    if (rate <= 0) {
        peak.source = "no interconnect peak: NVML: " + links + ", but neither their version (" +
                      (a.nvlink_version ? std::to_string(*a.nvlink_version) + ", not known here" : "not read") +
                      ") nor their speed could be read";
        return peak;
    }
    peak.name = "NVLink";
    peak.bytes_per_s = a.nvlinks_active * rate;
    peak.margin = interconnect_margin;
    peak.source = "NVML: " + links + ", " + how + ": " + gbytes(peak.bytes_per_s) + " per direction";
    return peak;
}

InterconnectPeak pcie_peak(const LinkAnswers &a) {
    InterconnectPeak peak;
    const std::string nvlink = a.nvlinks_answered == 0
                                   ? "no NVLink"
                                   : "none of " + std::to_string(a.nvlinks_answered) + " NVLink links active";
    const double lane = a.pcie_generation ? pcie_lane_rate(*a.pcie_generation) : 0;
    if (lane <= 0 || !a.pcie_width || *a.pcie_width == 0) {
        peak.source = "no interconnect peak: NVML: " + nvlink + ", and the PCIe link's generation and width " +
                      (a.pcie_generation && a.pcie_width ? "are not known here (Gen" +
                                                               std::to_string(*a.pcie_generation) + ")"
                                                         : "could not be read");
        return peak;
    }
    peak.name = "PCIe";
    peak.bytes_per_s = lane * *a.pcie_width;
    peak.margin = interconnect_margin;
    std::string now;
    if (a.pcie_current_generation && a.pcie_current_width)
        now = " (Gen" + std::to_string(*a.pcie_current_generation) + " x" + std::to_string(*a.pcie_current_width) +
              " when read: an idle link trains down)";
    peak.source = "NVML: " + nvlink + "; PCIe Gen" + std::to_string(*a.pcie_generation) + " x" +
                  std::to_string(*a.pcie_width) + " at most with this device and system" + now + ": " +
                  gbytes(peak.bytes_per_s) + " per direction";
    return peak;
}

}  // namespace

InterconnectPeak interconnect_peak(const LinkAnswers &answers) {
    if (!answers.unreadable.empty()) return {"", 0, 0, "no interconnect peak: " + answers.unreadable};
    return answers.nvlinks_active > 0 ? nvlink_peak(answers) : pcie_peak(answers);
}

nlohmann::json interconnect_json(const InterconnectPeak &peak) {
    return {{"name", peak.name}, {"bytes_per_s", peak.bytes_per_s}, {"margin", peak.margin}, {"source", peak.source}};
}

InterconnectPeak interconnect_from_json(const nlohmann::json &j) {
    InterconnectPeak peak{j.at("name").get<std::string>(), j.at("bytes_per_s").get<double>(),
                          j.at("margin").get<double>(), j.at("source").get<std::string>()};
    if (!(peak.bytes_per_s >= 0) || !(peak.margin >= 0))
        throw std::invalid_argument("an interconnect's bandwidth and margin are >= 0");
    return peak;
}

}  // namespace gpubench
