// The interconnect's peak as NVML's answers give it (made up here: NVLink 4 with 18 links, no
// NVLink but a PCIe Gen5 x16 link, NVLink links all down, a driver that overstates the
// version, unsupported calls), and bytes declared as crossing it held to it: %PEAK against
// NVLink, the peak's source recorded, no %PEAK and no refusal where no peak is known.
#include "check.hpp"
#include "entry_figures.hpp"
#include "entry_json.hpp"
#include "interconnect_peak.hpp"
#include "measure.hpp"
#include "roofline.hpp"

#include <catch2/catch.hpp>

using namespace gpubench;

namespace {

// An H200 of the user's host (NV18 to every peer): 18 active NVLink 4.0 links at NVML's line
// rate, PCIe Gen5 x16 (Gen1 when idle).
LinkAnswers nv18() {
    LinkAnswers a;
    a.nvlinks_answered = a.nvlinks_active = 18;
    a.nvlink_version = 6;  // nvmlNvlinkVersion_t: NVML_NVLINK_VERSION_4_0
    a.nvlink_speed_mbps = 26562;
    a.pcie_generation = 5, a.pcie_width = 16;
    a.pcie_current_generation = 1, a.pcie_current_width = 16;
    return a;
}

// An entry whose bus bytes cross the interconnect, `bytes` per run in `seconds`, held to `roofline`.
EntryResult across(double bytes, double seconds, const Roofline &roofline) {
    EntryResult e;
    e.status = EntryStatus::ok;
    e.cuda_devices = {0, 1, 2, 3};
    e.work.bytes = bytes;
    e.work.items = bytes / 1.5;
    e.work.device_bytes = 2 * e.work.items;
    e.work.flags = GPUBENCH_WORK_RUN_REPEATABLE | GPUBENCH_WORK_BYTES_INTERCONNECT;
    e.timing.samples.run = {seconds, seconds, seconds};
    hold_to_level(e, roofline, false);
    return e;
}

// An H200's ceilings by memory level (HBM at 4.8 TB/s), with this interconnect.
Roofline h200(const LinkAnswers &links) {
    Roofline r;
    r.bytes_per_s = 4.8e12;
    r.cache_bytes = 60u << 20;
    r.margin = 0.05;
    r.levels = {{"L2", 60u << 20, 10e12, 0.5}, {"HBM", 0, 4.8e12, 0.05}};
    r.interconnect = interconnect_peak(links);
    return r;
}

}  // namespace

TEST_CASE("NVLink 4 with 18 active links: 18 x 25 GB/s = 450 GB/s per direction", "[interconnect]") {
    const InterconnectPeak peak = interconnect_peak(nv18());
    CHECK(peak.name == "NVLink");
    CHECK(peak.bytes_per_s == Approx(450e9));
    CHECK(peak.margin == interconnect_margin);
    CHECK_THAT(peak.source, Catch::Contains("18 of 18 NVLink links active") && Catch::Contains("NVLink 4.0") &&
                                Catch::Contains("rated 25 GB/s per link and direction") &&
                                Catch::Contains("450 GB/s per direction"));
    // Fewer links up: fewer links counted.
    LinkAnswers twelve = nv18();
    twelve.nvlinks_active = 12;
    CHECK(interconnect_peak(twelve).bytes_per_s == Approx(300e9));
    // NVLink 1 (P100), 2.2 and 3.0 (A100), 5.0 (B200).
    for (const auto &[version, rate] : {std::pair{1u, 20e9}, {3u, 25e9}, {4u, 25e9}, {7u, 50e9}}) {
        LinkAnswers a = nv18();
        a.nvlink_version = version;
        a.nvlink_speed_mbps = std::nullopt;
        CHECK(interconnect_peak(a).bytes_per_s == Approx(18 * rate));
    }
}

TEST_CASE("a version the links' line rate contradicts, or none, takes the rate the line allows", "[interconnect]") {
    // Some drivers report an H100's links as NVLink 5.0 (50 GB/s); their line rate says 25.
    LinkAnswers overstated = nv18();
    overstated.nvlink_version = 7;
    const InterconnectPeak peak = interconnect_peak(overstated);
    CHECK(peak.bytes_per_s == Approx(450e9));
    CHECK_THAT(peak.source, Catch::Contains("above the links' line rate 26.56 GB/s: rated 25 GB/s"));
    // A B200's line rate keeps NVLink 5.0's 50 GB/s.
    LinkAnswers b200 = overstated;
    b200.nvlink_speed_mbps = 53125;
    CHECK(interconnect_peak(b200).bytes_per_s == Approx(900e9));
    // A version not known here: the line rate itself, rated where it reaches a known rate.
    LinkAnswers unknown = nv18();
    unknown.nvlink_version = 9;
    unknown.nvlink_speed_mbps = 106250;
    CHECK(interconnect_peak(unknown).bytes_per_s == Approx(18 * 50e9));
    unknown.nvlink_speed_mbps = 15000;  // below every rating: the line rate
    CHECK(interconnect_peak(unknown).bytes_per_s == Approx(18 * 15e9));
    // Neither version nor speed: no peak, and why.
    unknown.nvlink_speed_mbps = std::nullopt;
    const InterconnectPeak none = interconnect_peak(unknown);
    CHECK_FALSE(none.known());
    CHECK(none.name.empty());
    CHECK_THAT(none.source, Catch::StartsWith("no interconnect peak: NVML: 18 of 18 NVLink links active, but "
                                              "neither their version (9, not known here) nor their speed"));
}

TEST_CASE("no NVLink, or every link down: the PCIe link at its generation and width", "[interconnect]") {
    LinkAnswers pcie;
    pcie.pcie_generation = 5, pcie.pcie_width = 16;
    pcie.pcie_current_generation = 1, pcie.pcie_current_width = 16;
    InterconnectPeak peak = interconnect_peak(pcie);
    CHECK(peak.name == "PCIe");
    CHECK(peak.bytes_per_s == Approx(32e9 * 16 * 128 / 130 / 8));  // 63.0 GB/s
    CHECK_THAT(peak.source, Catch::Contains("no NVLink; PCIe Gen5 x16 at most with this device and system (Gen1 x16 "
                                            "when read: an idle link trains down): 63.02 GB/s per direction"));
    LinkAnswers down = nv18();
    down.nvlinks_active = 0;
    peak = interconnect_peak(down);
    CHECK(peak.name == "PCIe");
    CHECK(peak.bytes_per_s == Approx(63.015e9).epsilon(1e-3));
    CHECK_THAT(peak.source, Catch::Contains("none of 18 NVLink links active"));
    // Gen3 x8 and Gen1 x16, by their encodings.
    pcie.pcie_generation = 3, pcie.pcie_width = 8;
    CHECK(interconnect_peak(pcie).bytes_per_s == Approx(8e9 * 8 * 128 / 130 / 8));
    pcie.pcie_generation = 1, pcie.pcie_width = 16;
    CHECK(interconnect_peak(pcie).bytes_per_s == Approx(4e9));
}

TEST_CASE("unsupported calls and no NVML: no peak, with the reason", "[interconnect]") {
    const InterconnectPeak nothing = interconnect_peak(LinkAnswers{});
    CHECK_FALSE(nothing.known());
    CHECK_THAT(nothing.source, Catch::Contains("no NVLink, and the PCIe link's generation and width could not be read"));
    LinkAnswers future;
    future.pcie_generation = 7, future.pcie_width = 16;
    CHECK_THAT(interconnect_peak(future).source, Catch::Contains("are not known here (Gen7)"));
    const InterconnectPeak unloaded = interconnect_peak(LinkAnswers{"NVML: libnvidia-ml.so.1 not found"});
    CHECK_FALSE(unloaded.known());
    CHECK(unloaded.source == "no interconnect peak: NVML: libnvidia-ml.so.1 not found");
}

TEST_CASE("bus bytes are held to the interconnect: 355 GB/s on NV18 is 79% NVLink", "[interconnect]") {
    // The user's 4 x H200 at 4 GiB per GPU: busbw 355 GB/s was "7%" of HBM; it is 79% of NVLink.
    const Roofline roofline = h200(nv18());
    const double bytes = 1.5 * (4.0 * (1u << 30));  // 2(n-1)/n x size for n = 4
    const EntryResult e = across(bytes, bytes / 355e9, roofline);
    CHECK(e.ceiling.level == "NVLink");
    CHECK(e.ceiling.bytes_per_s == Approx(450e9));
    CHECK(e.ceiling.level_source == roofline.interconnect.source);
    const EntryFigures f = entry_figures(e, this_host_run());
    CHECK(f.peak_level == "NVLink");
    CHECK(f.percent_of_peak == Approx(78.9).epsilon(0.01));
    CHECK(faster_than_hardware(e).empty());
    // Its source is recorded with the ceiling, and read back.
    const nlohmann::json json = e;
    CHECK(json["throughput"]["peak_level"] == "NVLink");
    CHECK(json["throughput"]["ceiling"]["level"] == "NVLink");
    CHECK(json["throughput"]["ceiling"]["level_source"] == roofline.interconnect.source);
    CHECK(json.get<EntryResult>().ceiling.level_source == roofline.interconnect.source);
    // Faster than NVLink beyond its margin: the timing or the declared bytes are wrong.
    const EntryResult impossible = across(bytes, bytes / 520e9, roofline);
    CHECK_THAT(faster_than_hardware(impossible), Catch::Contains("of the NVLink bandwidth 450 GB/s"));
    // Without the flag, the same bytes are read against the memory, as before.
    EntryResult memory = e;
    memory.work.flags = GPUBENCH_WORK_RUN_REPEATABLE;
    hold_to_level(memory, roofline, false);
    CHECK(memory.ceiling.level == "HBM");
    CHECK(memory.ceiling.level_source.empty());
}

TEST_CASE("where the interconnect's peak is unknown there is no %PEAK, and no refusal", "[interconnect]") {
    const Roofline roofline = h200(LinkAnswers{});
    const EntryResult e = across(1e9, 1e9 / 5e12, roofline);  // fast, but nothing to hold it to
    CHECK(e.ceiling.level == "interconnect");
    CHECK(e.ceiling.bytes_per_s == 0);
    CHECK_THAT(e.ceiling.level_source, Catch::StartsWith("no interconnect peak"));
    CHECK(entry_figures(e, this_host_run()).percent_of_peak == 0);
    CHECK(entry_figures(e, this_host_run()).roofline_bound.empty());
    CHECK(faster_than_hardware(e).empty());
    const nlohmann::json json = e;
    CHECK_FALSE(json["throughput"].contains("percent_of_peak"));
    CHECK(json["throughput"]["ceiling"]["level_source"] == e.ceiling.level_source);
}

TEST_CASE("the roofline records its interconnect, and reads it back", "[interconnect]") {
    const Roofline roofline = h200(nv18());
    const nlohmann::json json = roofline_json(roofline);
    CHECK(json["interconnect"]["name"] == "NVLink");
    CHECK(json["interconnect"]["bytes_per_s"] == Approx(450e9));
    const Roofline back = roofline_from_json(json);
    CHECK(back.interconnect.name == "NVLink");
    CHECK(back.interconnect.bytes_per_s == Approx(450e9));
    CHECK(back.interconnect.source == roofline.interconnect.source);
    // A host's roofline has none, and a file from before has none either.
    CHECK_FALSE(roofline_json(Roofline{}).contains("interconnect"));
    nlohmann::json older = json;
    older.erase("interconnect");
    CHECK_FALSE(roofline_from_json(older).interconnect.known());
    older["interconnect"] = {{"name", "NVLink"}, {"bytes_per_s", -1}, {"margin", 0.1}, {"source", ""}};
    CHECK_THROWS(roofline_from_json(older));
}
