// Which GPUs the runner and its workers are shown (visible_devices.hpp, worker_pool.hpp),
// with a fake driver listing of four GPUs: CUDA_VISIBLE_DEVICES read as CUDA reads it, the
// GPUs counted without starting CUDA, each worker shown its entry's GPUs by UUID in the
// entry's order, and its numbering mapped back to the runner's.
#include "fake_nvidia_driver.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"
#include "text_format.hpp"
#include "visible_devices.hpp"
#include "worker_pool.hpp"

#include <catch2/catch.hpp>

using namespace gpubench;
using namespace runner_process;
using DeviceEntries = std::optional<std::vector<std::string>>;

using fake_nvidia_driver::fake_listing;
using fake_nvidia_driver::uuid_of;

TEST_CASE("CUDA_VISIBLE_DEVICES: entries as CUDA reads them", "[visible-devices]") {
    CHECK_FALSE(visible_device_entries(nullptr));
    CHECK(visible_device_entries("") == DeviceEntries(std::vector<std::string>{}));
    CHECK(visible_device_entries(" 1, 3 ") == DeviceEntries({"1", "3"}));
    CHECK(visible_device_entries("GPU-ab,0") == DeviceEntries({"GPU-ab", "0"}));
}

TEST_CASE("the runner's devices, narrowed by index, whatever it inherited", "[visible-devices]") {
    CHECK(narrowed_visible_devices(std::nullopt, {2, 0}) == "2,0");
    CHECK(narrowed_visible_devices(DeviceEntries({"3", "1"}), {1}) == "1");
    CHECK(narrowed_visible_devices(DeviceEntries({uuid_of(2), "0"}), {0, 1}) == uuid_of(2) + ",0");
    // Past what the runner was shown: an index that shows the child no device.
    CHECK(narrowed_visible_devices(DeviceEntries({"3"}), {1}) == std::to_string(1 << 20));
}

TEST_CASE("the GPUs CUDA will show, counted from the driver's listing", "[visible-devices]") {
    test_support::TempFolder folder("visible-devices");
    fake_listing(folder.path(), 4);
    CHECK(visible_gpu_count(folder.path(), std::nullopt) == 4);
    CHECK(listed_gpu_uuids(folder.path()) == DeviceEntries({uuid_of(0), uuid_of(1), uuid_of(2), uuid_of(3)}));
    CHECK(visible_gpu_count(folder.path(), DeviceEntries({"1", "3"})) == 2);
    CHECK(visible_gpu_count(folder.path(), DeviceEntries({uuid_of(2), "0"})) == 2);
    CHECK(visible_gpu_count(folder.path(), DeviceEntries(std::vector<std::string>{})) == 0);
    // CUDA shows the entries before the first that names no GPU.
    CHECK(visible_gpu_count(folder.path(), DeviceEntries({"0", "7", "1"})) == 1);
    CHECK(visible_gpu_count(folder.path(), DeviceEntries({"x", "1"})) == 0);
    // What only CUDA can tell: no count, so the runner starts CUDA on every GPU (never a wrong one).
    CHECK_FALSE(visible_gpu_count(folder.path(), DeviceEntries({"MIG-4b7c"})));
    CHECK_FALSE(visible_gpu_count(folder.path(), DeviceEntries({"GPU-0000"})));  // a prefix CUDA may complete
    CHECK_FALSE(visible_gpu_count(folder.path(), DeviceEntries({"1", "1"})));
    CHECK_FALSE(visible_gpu_count(folder.path() / "none", std::nullopt));
    SECTION("a GPU the driver excludes is not counted") {
        test_support::TempFolder other("visible-devices-excluded");
        fake_listing(other.path(), 4, 2);
        CHECK(visible_gpu_count(other.path(), std::nullopt) == 3);
    }
}

TEST_CASE("a worker is shown its entry's GPUs by UUID, in the entry's order", "[visible-devices]") {
    const std::vector<DeviceIdentity> known{{0, "H200", uuid_of(0), "0000:18:00.0"},
                                            {1, "H200", uuid_of(1), "0000:19:00.0"},
                                            {2, "H200", uuid_of(2), "0000:20:00.0"},
                                            {3, "H200", uuid_of(3), "0000:21:00.0"}};
    CHECK(worker_visible_devices({2}, known, std::nullopt) == uuid_of(2));
    CHECK(worker_visible_devices({3, 0, 1}, known, DeviceEntries({"5"})) ==
          uuid_of(3) + "," + uuid_of(0) + "," + uuid_of(1));
    CHECK(worker_visible_devices({}, known, std::nullopt).empty());  // a CPU entry: no GPU at all
    // Before the runner's probe (a worker started ahead): by index, through what it inherited.
    CHECK(worker_visible_devices({1}, {}, std::nullopt) == "1");
    CHECK(worker_visible_devices({1}, {}, DeviceEntries({uuid_of(3), uuid_of(1)})) == uuid_of(1));
    // MIG instances, and GPUs the driver's listing does not hold: by index, as CUDA names them.
    CHECK(worker_visible_devices({1}, known, DeviceEntries({"MIG-a", "MIG-b"})) == "MIG-b");
    CHECK(worker_visible_devices({2}, known, std::nullopt, DeviceEntries({uuid_of(0), uuid_of(1)})) == "2");
    CHECK(worker_visible_devices({1}, known, std::nullopt, DeviceEntries({uuid_of(0), uuid_of(1)})) == uuid_of(1));

    SECTION("its numbering goes in from 0 and comes back as the runner's") {
        const WorkerDevices devices{{3, 0, 1}, worker_visible_devices({3, 0, 1}, known, std::nullopt)};
        MeasureOptions options;
        options.cuda_device = 3;
        options.cuda_devices = {3, 0, 1, 2};
        const MeasureOptions in_worker = devices.for_worker(options);
        CHECK(in_worker.cuda_device == 0);
        CHECK(in_worker.cuda_devices == std::vector<int>{0, 1, 2});
        EntryResult entry;
        entry.cuda_devices = {0, 1, 2};
        devices.for_runner(entry);
        CHECK(entry.cuda_devices == std::vector<int>{3, 0, 1});
        const WorkerDevices one{{2}, worker_visible_devices({2}, known, std::nullopt)};
        CHECK(one.for_worker(options).cuda_devices.empty());
    }
}

TEST_CASE("eight GPUs: every one counted, and a worker shown any of them by UUID", "[visible-devices]") {
    test_support::TempFolder folder("visible-devices-eight");
    fake_listing(folder.path(), 8);
    const DeviceEntries listed = listed_gpu_uuids(folder.path());
    REQUIRE(listed);
    REQUIRE(listed->size() == 8);
    CHECK(listed->back() == uuid_of(7));
    CHECK(visible_gpu_count(folder.path(), std::nullopt) == 8);
    CHECK(visible_gpu_count(folder.path(), DeviceEntries({"0", "7", "1"})) == 3);  // 7 names a GPU here
    CHECK(visible_gpu_count(folder.path(), DeviceEntries({"7", "8"})) == 1);
    CHECK(narrowed_visible_devices(std::nullopt, {7, 4}) == "7,4");
    std::vector<DeviceIdentity> known;
    std::vector<int> every;
    for (int gpu = 0; gpu < 8; ++gpu) {
        known.push_back({gpu, "H200", uuid_of(gpu), "0000:" + std::to_string(18 + gpu) + ":00.0"});
        every.push_back(gpu);
    }
    CHECK(worker_visible_devices({7}, known, std::nullopt, listed) == uuid_of(7));
    CHECK(worker_visible_devices(every, known, std::nullopt, listed) == join(*listed, ","));
    // The last two, the entry's first GPU 7: the worker's 0 and 1, the runner's 7 and 6 again.
    const WorkerDevices devices{{7, 6}, worker_visible_devices({7, 6}, known, std::nullopt, listed)};
    CHECK(devices.visible == uuid_of(7) + "," + uuid_of(6));
    MeasureOptions options;
    options.cuda_device = 7;
    options.cuda_devices = {7, 6};
    const MeasureOptions in_worker = devices.for_worker(options);
    CHECK(in_worker.cuda_device == 0);
    CHECK(in_worker.cuda_devices == std::vector<int>{0, 1});
    EntryResult entry;
    entry.cuda_devices = {0, 1};
    devices.for_runner(entry);
    CHECK(entry.cuda_devices == std::vector<int>{7, 6});
}

TEST_CASE("a CPU entry's worker is shown no GPU, whatever the runner inherited", "[visible-devices]") {
    test_support::TempFolder folder("visible-devices-runner");
    fake_listing(folder.path(), 4);
    const auto path = temp_results("visible_devices_cpu");
    const Outcome o = run_runner_shell("GPUBENCH_PROC_NVIDIA_GPUS=" + folder.path().string() +
                                       " CUDA_VISIBLE_DEVICES=1,2 " + GPUBENCH_RUNNER + " " + fixtures() +
                                       " --plugin fixture_multi_device --sizes 4 --max-time 0.05 -q -o " +
                                       path.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const nlohmann::json document = nlohmann::json::parse(slurp(path));
    int seen = 0;
    for (const nlohmann::json &metric : document["entries"][0]["metrics"])
        if (metric["name"] == "visible_count") {
            CHECK(metric["value"] == 0);
            ++seen;
        }
    CHECK(seen == 1);
    std::filesystem::remove(path);
}
