// Plugins across several GPUs (ABI 1.5), as far as a machine without a GPU can show: the
// descriptor's max_devices read (only where the plugin's struct_size has it), scanned and
// cached; the devices a run selects handed to create() and work(), up to max_devices; the
// C++ helper reading the new fields only where an older runner's structs have them. The GPU
// side (allreduce_nccl, the timer across devices) is in test_gpu_measure.cpp.
#include "descriptor_check.hpp"
#include "measure.hpp"
#include "plugin_catalog.hpp"
#include "results.hpp"
#include "results_model.hpp"
#include "test_support.hpp"
#include "worker_main.hpp"

#include <gpubench/plugin.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <map>

using namespace gpubench;
using test_support::metrics_of;
namespace fs = std::filesystem;

namespace {

MeasureOptions quick_device_options() { return test_support::sampled(3, 5); }

PluginInfo cuda_plugin(uint32_t max_devices) {
    PluginInfo info;
    info.device_kind = GPUBENCH_DEVICE_CUDA;
    info.max_devices = max_devices;
    return info;
}

}  // namespace

TEST_CASE("ABI 1.5: a plugin built against 1.4 loads and runs on one device", "[multi_device]") {
    Plugin plugin = test_support::load_fixture("fixture_v1_4.so");
    CHECK(plugin.info().abi_text() == "1.4");
    CHECK(plugin.info().max_devices == 1);  // the garbage beyond its struct_size is not read
    test_support::ClaimedDevicesTimer timer({3, 5, 7});
    Measurement e = measure_entry(plugin, 20, quick_device_options(), timer);
    INFO(e.message);
    CHECK(e.status == EntryStatus::ok);
    CHECK(e.cuda_devices == std::vector<int>{3});
}

TEST_CASE("ABI 1.5: max_devices is read back through the scan and its cache", "[multi_device]") {
    test_support::TempFolder cache_dir, plugins;
    for (const char *file : {"fixture_multi_device.so", "fixture_v1_4.so"})
        fs::copy_file(test_support::fixture(file), plugins.path() / file);
    PluginSearch search = test_support::search_in({plugins.path()});
    search.scan.cache = cache_dir.path() / "plugin-scan.json";
    const auto max_devices = [](const PluginCatalog &catalog) {
        std::map<std::string, uint32_t> out;
        for (const PluginInfo &p : catalog.plugins) out[p.name] = p.max_devices;
        return out;
    };
    const std::map<std::string, uint32_t> expected{{"fixture_multi_device", 2}, {"fixture_v1_4", 1}};
    const PluginCatalog scanned = discover_plugins(search);
    CHECK(scanned.refused.empty());
    CHECK(max_devices(scanned) == expected);
    search.scan.runner = "/nonexistent/runner";  // no scanner can start: the cache alone answers
    CHECK(max_devices(discover_plugins(search)) == expected);
}

TEST_CASE("ABI 1.5: max_devices out of range in a cached description is refused", "[multi_device]") {
    PluginInfo info = cuda_plugin(2);
    info.name = "cached_one";
    nlohmann::json json = plugin_info_to_json(info);
    CHECK(json.at("max_devices") == 2);
    json["max_devices"] = 5000;
    CHECK_THAT(plugin_info_problem(plugin_info_from_json(json, "x.so")),
               Catch::Contains("max_devices 5000 is outside 1..1024"));
    json.erase("max_devices");  // a description before 1.5: a single-device plugin
    CHECK(plugin_info_from_json(json, "x.so").max_devices == 1);
}

TEST_CASE("ABI 1.5: an entry takes as many of the selected devices as max_devices allows",
          "[multi_device]") {
    MeasureOptions options;
    options.cuda_device = 1;
    CHECK(selected_cuda_devices(options) == std::vector<int>{1});  // today's runner: --device
    options.cuda_devices = {0, 1, 2, 3};
    CHECK(selected_cuda_devices(options) == std::vector<int>{1, 0, 2, 3});  // --device first
    CHECK(entry_cuda_devices(cuda_plugin(1), options) == std::vector<int>{1});
    CHECK(entry_cuda_devices(cuda_plugin(2), options) == std::vector<int>{1, 0});
    CHECK(entry_cuda_devices(cuda_plugin(64), options) == std::vector<int>{1, 0, 2, 3});
    PluginInfo cpu = cuda_plugin(64);
    cpu.device_kind = GPUBENCH_DEVICE_CPU;
    CHECK(entry_cuda_devices(cpu, options).empty());
}

TEST_CASE("ABI 1.5: create() and work() are given the timer's devices, up to max_devices",
          "[multi_device]") {
    test_support::ClaimedDevicesTimer timer({3, 5, 7});
    Plugin multi = test_support::load_fixture("fixture_multi_device.so");
    Measurement e = measure_entry(multi, 10, quick_device_options(), timer);
    INFO(e.message);
    REQUIRE(e.status == EntryStatus::ok);
    CHECK(e.cuda_devices == std::vector<int>{3, 5});
    CHECK(e.work.items == 20);  // work() was told 2 devices
    const auto given = metrics_of(e);
    CHECK(given.at("device_count") == 2);
    CHECK(given.at("first_device") == 3);
    CHECK(given.at("last_device") == 5);
    CHECK(given.at("streams") == 2);
    CHECK(given.at("first_is_cuda_device") == 1);
    CHECK(nlohmann::json(e)["devices"] == nlohmann::json::parse(R"([{"index": 3}, {"index": 5}])"));
    CHECK(nlohmann::json(e).get<EntryResult>().cuda_devices == e.cuda_devices);

    // A single-device plugin gets the first device alone; a host clock, none.
    const Plugin good = test_support::load_fixture("fixture_good.so");
    Measurement single = measure_entry(good, 10, quick_device_options(), timer);
    CHECK(single.cuda_devices == std::vector<int>{3});
    SteadyClockTimer host;
    Measurement on_host = measure_entry(multi, 10, quick_device_options(), host);
    REQUIRE(on_host.status == EntryStatus::ok);
    CHECK(on_host.cuda_devices.empty());
    CHECK(on_host.work.items == 10);
    CHECK(metrics_of(on_host).at("device_count") == 0);
    CHECK_FALSE(nlohmann::json(on_host).contains("devices"));
}

TEST_CASE("ABI 1.5: the measurement options carry the selected devices, and older files "
          "still read", "[multi_device]") {
    MeasureOptions options;
    options.cuda_devices = {0, 2};
    nlohmann::json json = options;
    CHECK(json.at("cuda_devices") == nlohmann::json::array({0, 2}));
    CHECK(json.get<MeasureOptions>().cuda_devices == options.cuda_devices);
    json.erase("cuda_devices");  // a file written before 1.5
    CHECK(json.get<MeasureOptions>().cuda_devices.empty());
}

namespace {

// Plugin classes for the C++ helper: one that takes the device count in work(), one that
// does not (as every plugin before 1.5).
struct AcrossDevices {
    static inline gpubench::Setup last;
    explicit AcrossDevices(const gpubench::Setup &setup) { last = setup; }
    static gpubench::Work work(uint64_t size, const gpubench::Params &, int devices) {
        gpubench::Work w;
        w.items = static_cast<double>(size) * devices;
        return w;
    }
    void run() {}
    gpubench::Verification verify() { return {}; }
};

struct OnOneDevice {
    explicit OnOneDevice(const gpubench::Setup &) {}
    static gpubench::Work work(uint64_t size, const gpubench::Params &) {
        gpubench::Work w;
        w.items = static_cast<double>(size);
        return w;
    }
    void run() {}
    gpubench::Verification verify() { return {}; }
};

gpubench::Info helper_info(uint32_t max_devices) {
    gpubench::Info info{"helper_test", "helper", "test", GPUBENCH_DEVICE_CUDA, "d", "n", "1", "",
                        1, 100, {10}};
    info.max_devices = max_devices;
    return info;
}

double items_for(const gpubench_plugin &d, uint32_t work_size, int32_t devices) {
    gpubench_work raw{};
    raw.struct_size = work_size;
    raw.devices = devices;
    char message[128] = "";
    REQUIRE(d.work(10, "", &raw, message, sizeof message) == GPUBENCH_OK);
    return raw.items;
}

}  // namespace

TEST_CASE("ABI 1.5: the C++ helper reads the device fields only where the runner's structs "
          "have them", "[multi_device]") {
    const gpubench::Info across_info = helper_info(8);
    const gpubench_plugin across =
        gpubench::detail::make_descriptor<AcrossDevices>(across_info, "test");
    CHECK(across.max_devices == 8);
    CHECK(gpubench::detail::make_descriptor<OnOneDevice>(helper_info(1), "test").max_devices == 1);
    // work(): told the devices by a 1.5 runner; one device from an older one (garbage beyond
    // its struct_size), and from a plugin that does not ask.
    constexpr uint32_t work_v1_4 = offsetof(gpubench_work, devices);
    CHECK(items_for(across, sizeof(gpubench_work), 3) == 30);
    CHECK(items_for(across, work_v1_4, 77) == 10);
    const gpubench::Info one_info = helper_info(1);
    CHECK(items_for(gpubench::detail::make_descriptor<OnOneDevice>(one_info, "test"),
                    sizeof(gpubench_work), 3) == 10);

    // create(): every device and stream from a 1.5 runner; the single pair from an older one.
    int streams[2];
    const int32_t devices[2] = {4, 6};
    void *const stream_list[2] = {&streams[0], &streams[1]};
    gpubench_setup_args args{};
    args.struct_size = sizeof args;
    args.size = 10;
    args.params = "";
    args.cuda_device = 4;
    args.cuda_stream = stream_list[0];
    args.device_count = 2;
    args.cuda_devices = devices;
    args.cuda_streams = stream_list;
    const auto create = [&] { return test_support::setup_given<AcrossDevices>(across, args); };
    gpubench::Setup setup = create();
    CHECK(setup.cuda_devices == std::vector<int>{4, 6});
    CHECK(setup.cuda_streams == std::vector<void *>{stream_list[0], stream_list[1]});
    args.struct_size = offsetof(gpubench_setup_args, device_count);  // a 1.4 runner's
    args.device_count = 99;
    setup = create();
    CHECK(setup.cuda_devices == std::vector<int>{4});
    CHECK(setup.cuda_streams == std::vector<void *>{stream_list[0]});
    args.cuda_stream = nullptr;  // a CPU plugin's arguments: no device
    CHECK(create().cuda_devices.empty());
}
