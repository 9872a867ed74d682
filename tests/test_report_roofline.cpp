// The HTML report's measured roofline (--counters): its data from hand-made results whose
// counters, declared work and roofs are known (a GPU and a CPU backend, a work_mismatch, an
// entry whose counters were not read, one counted without flops), and from a real sweep whose
// counters come from GPUBENCH_FAKE_COUNTERS. Drawn in a browser: tests/browser/report_page_test.py.
#include "work_mismatch.hpp"
#include "report_page_support.hpp"
#include "results_model.hpp"
#include "runner_process.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

using namespace gpubench;
using namespace report_page_support;
using nlohmann::json;

namespace {

const char *const h100 = "NVIDIA H100 80GB HBM3";

// The roofs of the hand-made files: a GPU whose ridge is 20 flops per HBM byte, and a host.
Roofline roofs(double fp32, double fp64, const MemoryLevel &cache, const MemoryLevel &memory) {
    Roofline r;
    r.flops[GPUBENCH_MATH_FP32] = fp32;
    r.flops[GPUBENCH_MATH_FP64] = fp64;
    r.bytes_per_s = memory.bytes_per_s;
    r.levels = {cache, memory};
    r.source = "hand-made";
    return r;
}
Roofline gpu_roofs() { return roofs(60e12, 30e12, {"L2", 50'000'000, 10e12, 0.5}, {"HBM", 0, 3e12, 0.05}); }
Roofline host_roofs() { return roofs(2e12, 1e12, {"L3", 30'000'000, 4e11, 0.2}, {"DRAM", 0, 1e11, 0.2}); }

struct Counted {
    std::string plugin;  // matmul_<backend>; cuda and cublas run on the GPU
    uint64_t size;
    double run_s, declared_bytes, declared_flops;
    std::string counters;  // the entry's source, or "not read: ..."
    std::map<std::string, double> values;
};

// A results document as the runner writes one with --counters, the GPU's and the host's roofs
// in its header.
json counted_results(const std::vector<Counted> &entries) {
    GpuInfo device;
    device.available = true;
    device.name = h100;
    json doc = results_header({"runner", "--counters"}, device, MeasureOptions{}, host_roofs());
    doc["gpu"]["roofline"] = roofline_json(gpu_roofs());
    doc["plugins"] = json::array();
    doc["entries"] = json::array();
    for (const Counted &e : entries) {
        const std::string backend = e.plugin.substr(e.plugin.find('_') + 1);
        const bool gpu = backend == "cuda" || backend == "cublas";
        doc["plugins"].push_back({{"name", e.plugin}, {"workload", "matmul"}, {"backend", backend},
                                  {"device_kind", gpu ? "cuda" : "cpu"}, {"description", ""},
                                  {"size_meaning", "N: square matrices N x N"}, {"version", "1.0"},
                                  {"abi", "1.3"}, {"build_info", ""}, {"file", e.plugin + ".so"}});
        EntryResult r;
        r.plugin = e.plugin;
        r.size = e.size;
        r.status = EntryStatus::ok;
        r.timing.clock = gpu ? "cuda_event" : "steady_clock";
        if (gpu) r.cuda_devices = {0}, r.sweep.devices = {{0, h100, "GPU-1", "00000000:19:00.0"}};
        r.timing.samples.run.assign(9, e.run_s);
        r.timing.noise.converged = true;
        r.work.bytes = e.declared_bytes;
        r.work.flops = e.declared_flops;
        r.headline = GPUBENCH_HEADLINE_FLOPS;
        const Roofline roofs = gpu ? gpu_roofs() : host_roofs();
        r.ceiling.flops = roofs.flops[GPUBENCH_MATH_FP32];
        r.ceiling.bytes_per_s = roofs.bytes_per_s;
        r.ceiling.level = gpu ? "HBM" : "DRAM";
        r.counters = e.counters;
        for (const auto &[name, value] : e.values)
            r.metrics.push_back({{name, value, "", "", GPUBENCH_BETTER_UNSTATED}, true});
        doc["entries"].push_back(r);
    }
    return doc;
}

// matmul at 1024 and 2048: cuda counted as declared, cublas counting a quarter of the declared
// flops (work_mismatch), omp counted by its cache misses at 1024 and not read at 2048, cuda at 2048
// counted without flops; and sort, measured without --counters.
json counted_study() {
    json doc = counted_results({
        {"matmul_cuda", 1024, 1e-3, 1.2e7, 2e9, "GPUBENCH_FAKE_COUNTERS",
         {{"dram_read_bytes_per_run", 4e8}, {"dram_write_bytes_per_run", 1e8}, {"l2_bytes_per_run", 2e9},
          {"fp32_flops_per_run", 2e9}}},
        {"matmul_cublas", 1024, 1e-4, 1.2e7, 2e9, "GPUBENCH_FAKE_COUNTERS",
         {{"dram_read_bytes_per_run", 2e7}, {"fp32_flops_per_run", 5e8}}},
        {"matmul_omp", 1024, 0.1, 1.2e7, 2e9, "perf_event_open", {{"llc_misses_per_run", 1e6}, {"cycles_per_run", 3e8}}},
        {"matmul_omp", 2048, 0.8, 4.8e7, 1.6e10,
         "not read: perf_event_open: this machine exposes no hardware counters (No such file or directory; a VM often does not)",
         {}},
        {"matmul_cuda", 2048, 4e-3, 4.8e7, 1.6e10, "GPUBENCH_FAKE_COUNTERS", {{"dram_read_bytes_per_run", 1e9}}},
    });
    EntryResult sort;
    sort.plugin = "sort_naive";
    sort.size = 1000;
    sort.status = EntryStatus::ok;
    sort.timing.clock = "steady_clock";
    sort.timing.samples.run.assign(9, 1e-3);
    doc["plugins"].push_back({{"name", "sort_naive"}, {"workload", "sort"}, {"backend", "naive"}, {"device_kind", "cpu"},
                              {"description", ""}, {"size_meaning", "N"}, {"version", "1.0"}, {"abi", "1.3"},
                              {"build_info", ""}, {"file", "sort_naive.so"}});
    doc["entries"].push_back(sort);
    return doc;
}

const json &point_at(const json &workload, const std::string &backend, uint64_t size) {
    for (const json &p : column(workload, backend).at("points"))
        if (p.at("size") == size) return p;
    FAIL("no point of " << backend << " at " << size);
    throw;
}

const json &device_named(const json &workload, const std::string &name) {
    for (const json &d : workload.at("roofline").at("devices"))
        if (d.at("name") == name) return d;
    FAIL("no roofs of " << name);
    throw;
}

// A roof list as name -> value.
std::map<std::string, double> roofs(const json &list, const char *value) {
    std::map<std::string, double> named;
    for (const json &roof : list) named[roof.at("name")] = roof.at(value).get<double>();
    return named;
}

}  // namespace

TEST_CASE("the measured roofline's data: counted intensity and rate against each device's roofs",
          "[report][html][roofline]") {
    const std::string page = page_of(input_of({counted_study()}));
    CHECK(page.find("function rooflineSection(") != std::string::npos);  // roofline.js, embedded
    const json data = page_data(page);
    REQUIRE(data.at("workloads").size() == 2);
    const json &matmul = data["workloads"][0];
    REQUIRE(matmul.at("title") == "matmul");

    // cuda at 1024: 2e9 flops over 5e8 DRAM bytes (read + write) in 1 ms; its declared work beside.
    const json &cuda = point_at(matmul, "cuda", 1024);
    CHECK(cuda.at("counters") == "GPUBENCH_FAKE_COUNTERS");
    CHECK(cuda.at("plugin") == "matmul_cuda");
    CHECK(cuda.at("work").at("bytes") == 1.2e7);
    CHECK(cuda.at("work").at("flops") == 2e9);
    const json &counted = cuda.at("counted");
    CHECK(counted.at("bytes") == 5e8);
    CHECK(counted.at("bytes_what") == "DRAM read + write");
    CHECK(counted.at("l2_bytes") == 2e9);
    CHECK(counted.at("flops") == 2e9);
    CHECK(counted.at("intensity").get<double>() == Approx(4));
    CHECK(counted.at("rate").get<double>() == Approx(2e12));
    CHECK(counted.at("device") == h100);
    CHECK_FALSE(cuda.contains("work_mismatch"));

    // cublas counts a quarter of the flops it declares: flagged, with both figures named.
    const json &cublas = point_at(matmul, "cublas", 1024);
    CHECK(cublas.at("flags") == json{"work_mismatch"});
    CHECK_THAT(cublas.at("work_mismatch").get<std::string>(),
               Catch::Contains("declares 2e+09 flops a run(), the counters 5e+08 flops"));
    CHECK(cublas.at("counted").at("intensity").get<double>() == Approx(25));

    // omp: its cache misses x 64 B, the declared flops (the CPU's counters count none).
    const json &omp = point_at(matmul, "omp", 1024).at("counted");
    CHECK(omp.at("bytes") == 6.4e7);
    CHECK(omp.at("flops_declared") == true);
    CHECK(omp.at("intensity").get<double>() == Approx(2e9 / 6.4e7));
    CHECK(omp.at("rate").get<double>() == Approx(2e10));
    CHECK(omp.at("device") == "host");

    // Not read: the reason, and no point; read without flops: why there is no point.
    const json &unread = point_at(matmul, "omp", 2048);
    CHECK_THAT(unread.at("counters").get<std::string>(), Catch::StartsWith("not read: perf_event_open: "));
    CHECK_FALSE(unread.contains("counted"));
    CHECK(unread.at("work").at("flops") == 1.6e10);
    CHECK(point_at(matmul, "cuda", 2048).at("counted").at("off_plot") == "no flops counted");

    // The roofs: the GPU's fp64 and fp32 flops, its L2 and HBM; the host's flops and DRAM.
    REQUIRE(matmul.at("roofline").at("devices").size() == 2);
    const json &gpu = device_named(matmul, h100);
    CHECK(roofs(gpu.at("compute"), "flops") == std::map<std::string, double>{{"fp32", 60e12}, {"fp64", 30e12}});
    CHECK(roofs(gpu.at("memory"), "bytes_per_s") == std::map<std::string, double>{{"L2", 10e12}, {"HBM", 3e12}});
    const json &host = device_named(matmul, "host");
    CHECK(host.at("host") == true);
    CHECK(roofs(host.at("memory"), "bytes_per_s") == std::map<std::string, double>{{"DRAM", 1e11}});
    CHECK(roofs(host.at("compute"), "flops").at("fp64") == 1e12);
    CHECK_FALSE(matmul.at("roofline").contains("note"));
    CHECK(matmul.at("roofline").at("mismatch_factor") == counted_work_tolerance);

    // sort ran without --counters: no counted work, no roofs (the page says to run with --counters).
    const json &sort = data["workloads"][1];
    CHECK(sort.at("roofline").at("devices").empty());
    CHECK_FALSE(column(sort, "naive").at("points").at(0).contains("counters"));
}

TEST_CASE("the measured roofline draws the roofs of at most three devices, saying whose", "[report][html][roofline]") {
    const Counted counted = {"matmul_cuda", 1024, 1e-3, 1.2e7, 2e9, "GPUBENCH_FAKE_COUNTERS",
                             {{"dram_read_bytes_per_run", 5e8}, {"fp32_flops_per_run", 2e9}}};
    json extra = counted_results({counted, {"matmul_cuda", 2048, 8e-3, 4.8e7, 1.6e10, counted.counters, counted.values}});
    const json data = html_report_data(input_of(
        {counted_results({counted}), counted_results({counted}), counted_results({counted}), extra}, {"a", "b", "c", "d"}));
    const json &roofline = data.at("workloads").at(0).at("roofline");
    REQUIRE(roofline.at("devices").size() == 1);
    const std::string d = std::string(h100) + " @ d";  // two of the five points
    CHECK(roofline["devices"][0].at("name") == d);
    CHECK_THAT(roofline.at("note").get<std::string>(), Catch::Contains("4 devices") && Catch::Contains(d));
}

TEST_CASE("a results header's rooflines: each GPU's of a --devices sweep, and the host's", "[report][roofline]") {
    json doc = counted_results({});
    json second = doc["gpu"];
    second["device"] = 1;
    second["name"] = "NVIDIA A100";
    Roofline a100 = gpu_roofs();
    a100.flops[GPUBENCH_MATH_FP32] = 19.5e12;
    second["roofline"] = roofline_json(a100);
    doc["gpus"] = {doc["gpu"], second};
    const RunHeader header = run_header(doc, "x.json");
    REQUIRE(header.rooflines.size() == 3);
    EntryResult on_a100;
    on_a100.cuda_devices = {1};
    on_a100.sweep.devices = {{1, "NVIDIA A100", "", ""}};
    REQUIRE(header.roofline_of(on_a100));
    CHECK(header.roofline_of(on_a100)->roofline.flops[GPUBENCH_MATH_FP32] == 19.5e12);
    on_a100.sweep.devices.clear();  // not probed: by index
    CHECK(header.roofline_of(on_a100)->device == "NVIDIA A100");
    const EntryResult on_host;
    REQUIRE(header.roofline_of(on_host));
    CHECK(header.roofline_of(on_host)->roofline.levels.back().name == "DRAM");
}

TEST_CASE("runner report --format html: the measured roofline of a sweep with GPUBENCH_FAKE_COUNTERS",
          "[report][html][roofline][cli][counters]") {
    using namespace runner_process;
    plotly_or_skip();
    test_support::TempFolder folder;
    const auto fake = folder.path() / "fake.json", sweep = folder.path() / "sweep.json";
    const auto page = folder.path() / "page.html";
    // vecadd declares n flops a run(): 1e5 counted is a work_mismatch at 1e7 (less than it
    // claims), and at 1000 a hundred times its declared flops (a figure, never a flag).
    write(fake, R"({"llc_misses_per_run": 2e6, "fp32_flops_per_run": 1e5})");
    Outcome run = run_command("GPUBENCH_FAKE_COUNTERS=" + fake.string() + " " + GPUBENCH_RUNNER + " --plugin-dir " +
                              GPUBENCH_PLUGIN_DIR + " --plugin vecadd_naive --sizes 1000,10000000 --counters" + quick +
                              "-q -o " + sweep.string());
    INFO(run.output);
    REQUIRE(std::filesystem::exists(sweep));
    Outcome report = run_runner("report --format html -o " + page.string() + " " + sweep.string());
    INFO(report.output);
    REQUIRE(report.status == 0);
    const json data = page_data(slurp(page));
    const json &vecadd = data.at("workloads").at(0);
    const json &small = point_at(vecadd, "naive", 1000), &large = point_at(vecadd, "naive", 10000000);
    for (const json *p : {&small, &large}) {
        CHECK(p->at("counters") == "GPUBENCH_FAKE_COUNTERS");
        CHECK(p->at("counted").at("bytes") == 2e6 * 64);
        CHECK(p->at("counted").at("flops") == 1e5);  // counted (faked), not declared
        CHECK(p->at("counted").at("intensity").get<double>() == Approx(1e5 / (2e6 * 64)));
        CHECK(p->at("counted").at("rate").get<double>() == Approx(1e5 / p->at("t").get<double>()));
    }
    CHECK_THAT(large.at("work_mismatch").get<std::string>(), Catch::Contains("declares 1e+07 flops"));
    CHECK(std::count(large.at("flags").begin(), large.at("flags").end(), "work_mismatch") == 1);
    CHECK_FALSE(small.contains("work_mismatch"));
    const json small_entry = read_json(sweep).at("entries").at(0);
    REQUIRE(small_entry.at("size") == 1000);
    CHECK(test_support::metric(small_entry, "flops_over_declared") == Approx(100));
    // The host's roofs, as the sweep measured them.
    const json &host = device_named(vecadd, "host");
    CHECK_FALSE(host.contains("missing"));
    CHECK_FALSE(host.at("compute").empty());
    CHECK_FALSE(host.at("memory").empty());
}
