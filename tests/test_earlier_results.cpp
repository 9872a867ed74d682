// Results files of every earlier writer read through the one decoding (from_json(EntryResult))
// and the one function of derived figures (entry_figures): tests/data/earlier-results/ keeps
// one small file of each earlier shape, cut from the recorded studies, and every figure their
// writer recorded beside the samples must come out of the decoded entry again.
#include "entry_figures.hpp"
#include "results_model.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

using namespace gpubench;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path earlier = fs::path(GPUBENCH_SOURCE_DIR) / "tests" / "data" / "earlier-results";

// `recorded` (a figure an earlier writer wrote) as the decoded entry's figure, where written.
void check_figure(const json &entry, const char *pointer, double figure) {
    const json::json_pointer where(pointer);
    if (!entry.contains(where) || !entry.at(where).is_number()) return;
    INFO(pointer);
    CHECK(figure == Approx(entry.at(where).get<double>()).epsilon(1e-12));
}

}  // namespace

TEST_CASE("files of every earlier shape decode, and their recorded figures come out of the entries again",
          "[results-model]") {
    std::set<std::string> files;
    for (const auto &item : fs::directory_iterator(earlier)) files.insert(item.path().string());
    REQUIRE(files.size() == 8);
    size_t timed = 0, with_resources = 0, with_energy = 0, with_peak = 0;
    for (const std::string &file : files) {
        INFO(file);
        const json raw = read_results_json(file);
        const ResultsDocument typed = read_results_file(file);
        CHECK(typed.header.logical_cores == raw.at("host").at("logical_cores").get<uint64_t>());
        REQUIRE(typed.entries.size() == raw.at("entries").size());
        for (size_t i = 0; i < typed.entries.size(); ++i) {
            const EntryResult &e = typed.entries[i];
            const json &r = raw["entries"][i];
            INFO(e.identity().text());
            CHECK(e.identity() == r.get<EntryIdentity>());
            CHECK(e.sweep.shard == (r.contains("shard") ? std::optional(r["shard"].get<uint32_t>()) : std::nullopt));
            CHECK(to_string(e.status) == r.at("status").get<std::string>());
            CHECK(e.work.flops == r.at("work").at("flops").get<double>());
            const EntryFigures f = entry_figures(e, typed.header.basis());
            CHECK(f.flags == r.value("flags", std::vector<std::string>{}));
            if (!r.contains("timing")) {
                CHECK(e.timing.samples.run.empty());
                continue;
            }
            ++timed;
            CHECK(e.timing.samples.run == r.at("timing").at("samples").at("run").get<std::vector<double>>());
            check_figure(r, "/timing/run/median", f.run.median);
            check_figure(r, "/timing/end_to_end/median", f.end_to_end.median);
            check_figure(r, "/timing/compute/median", f.compute.median);
            check_figure(r, "/timing/run_host/median", f.run_host ? f.run_host->median : -1);
            check_figure(r, "/throughput/gflops", f.gflops);
            check_figure(r, "/throughput/gbytes_per_s", f.gbytes_per_s);
            check_figure(r, "/throughput/items_per_s", f.items_per_s);
            if (r.contains(json::json_pointer("/throughput/percent_of_peak"))) {
                ++with_peak;
                check_figure(r, "/throughput/percent_of_peak", f.percent_of_peak);
                CHECK(f.roofline_bound == r["throughput"].at("roofline_bound").get<std::string>());
            }
            CHECK(e.resources.watched() == r.contains("resources"));
            if (r.contains("resources")) {
                ++with_resources;
                check_figure(r, "/resources/cpu_cores", f.cpu_cores);
                check_figure(r, "/resources/cpu_percent", f.cpu_percent);
            }
            CHECK(bool(f.energy) == r.contains(json::json_pointer("/energy/per_run_j")));
            if (f.energy) {
                ++with_energy;
                check_figure(r, "/energy/per_run_j", f.energy->per_run_j);
                check_figure(r, "/energy/mean_power_w", f.energy->mean_power_w);
            }
        }
    }
    // Every kind of figure was met somewhere, so that none is checked vacuously.
    CHECK(timed >= 15);
    CHECK(with_resources >= 5);
    CHECK(with_energy >= 2);
    CHECK(with_peak >= 3);
}

TEST_CASE("an earlier file's entries, read through the typed model, with the values their writers recorded",
          "[results-model]") {
    // 2026-11-23, before the headline choice, the harness and resources: a timing without
    // noise, compute or load. No noise criterion was recorded, so nothing is "noisy".
    const ResultsDocument old = read_results_file(earlier / "2026-11-23-before-headline.json");
    REQUIRE(old.entries.size() == 3);
    const EntryResult &naive = old.entries[0];
    CHECK(naive.identity() == EntryIdentity{"matmul_naive", 1024, "", 42});
    CHECK(naive.timing.noise.max_noise == 0);
    CHECK(naive.sweep.entry_wall_s == 0);
    CHECK_FALSE(naive.resources.watched());
    const EntryFigures figures = entry_figures(naive, old.header.basis());
    CHECK(figures.flags.empty());
    CHECK(figures.compute.median == naive.timing.samples.run.at(0));  // one sample
    CHECK(old.entries[1].status == EntryStatus::skipped);
    CHECK(old.entries[1].timing.samples.run.empty());
    // 2026-11-27, ranks measured in lock-step: the rank and the devices' names come back.
    const ResultsDocument ranks = read_results_file(earlier / "2026-11-27-ranks.json");
    REQUIRE_FALSE(ranks.entries.empty());
    CHECK(ranks.entries[0].across_ranks());
    REQUIRE_FALSE(ranks.entries[0].sweep.devices.empty());
    CHECK(ranks.entries[0].sweep.devices[0].name == "NVIDIA H200");
    // 2026-11-24, two shards merged: each entry's shard comes back, and the header times each
    // shard by its last entry.
    const ResultsDocument merged = read_results_file(earlier / "2026-11-24-merged-shards.json");
    REQUIRE(merged.entries.size() == 3);
    CHECK(merged.entries[1].sweep.shard == 1u);
    CHECK(merged.header.wall_time() == "shard 0: 1.2 s, shard 1: 1.3 s (the longest 1.09x the shortest)");
}
