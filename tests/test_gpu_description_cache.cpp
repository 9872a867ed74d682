// The runner's GPU descriptions, kept per machine (gpu_description_cache.hpp), on a made-up
// machine: a fake driver listing, version and boot id, and a cache folder of the test's. Kept
// whole; found again only under the same key; never kept where the key cannot be told, nor
// for an unavailable GPU; a damaged file ignored and replaced; the runner reading it.
#include "fake_nvidia_driver.hpp"
#include "gpu_description_cache.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"
#include "visible_devices.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace gpubench;
using namespace fake_nvidia_driver;
namespace fs = std::filesystem;

namespace {

// One boot of a machine with `gpus` GPUs, CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER unset.
struct FakeMachine {
    test_support::TempCacheDir cache;
    test_support::TempFolder root{"-gpu-description"};
    ScopedVariable listing{"GPUBENCH_PROC_NVIDIA_GPUS", (root.path() / "nvidia" / "gpus").string()};
    ScopedVariable boot{"GPUBENCH_PROC_BOOT_ID", (root.path() / "boot_id").string()};
    ScopedVariable visible{visible_devices_variable, std::nullopt};
    ScopedVariable order{"CUDA_DEVICE_ORDER", std::nullopt};

    explicit FakeMachine(int gpus = 2) {
        fake_listing(listing_folder(), gpus);
        fake_version(driver_folder(), "580.159.04");
        set_boot_id("5d2e6c1a-93f0-4c8e-b1d7-0f6a2b9c4e31");
    }
    fs::path driver_folder() const { return root.path() / "nvidia"; }
    fs::path listing_folder() const { return driver_folder() / "gpus"; }
    fs::path boot_id_file() const { return root.path() / "boot_id"; }
    fs::path cache_file() const { return cache.dir / gpu_description_cache_name; }
    void set_boot_id(const std::string &id) const { std::ofstream(boot_id_file()) << id << '\n'; }
};

// A description with every field set, none to its default.
GpuInfo described_gpu() {
    GpuInfo gpu;
    gpu.available = true;
    gpu.unavailable_reason = "kept as written";
    gpu.device = 0;
    gpu.name = "NVIDIA H200 (made up)";
    gpu.compute_major = 9;
    gpu.compute_minor = 1;
    gpu.sm_count = 132;
    gpu.memory_bytes = 150'029'828'096ull;  // over 2^32
    gpu.l2_bytes = 62'914'560;
    gpu.driver_version = 13000;
    gpu.driver_release = "580.159.04";
    gpu.runtime_version = 12080;
    gpu.pci_bus_id = "00000000:18:00.0";
    gpu.uuid = uuid_of(0);
    gpu.peak_fp32_flops = 6.69e13;
    gpu.peak_fp64_flops = 3.35e13;
    gpu.peak_bytes_per_s = 4.8e12;
    gpu.boost_clock_hz = 1.98e9;
    gpu.memory_bus_bits = 6144;
    gpu.l2_bytes_per_s = 1.0;  // never kept: it has a cache of its own
    return gpu;
}

// This machine's key for device 0, the made-up description kept under it.
GpuDescriptionKey kept_description_key() {
    const std::optional<GpuDescriptionKey> key = gpu_description_key(0);
    REQUIRE(key);
    keep_gpu_description(*key, described_gpu());
    REQUIRE(cached_gpu_description(*key));
    return *key;
}

void check_same_description(const GpuInfo &read, const GpuInfo &kept) {
    CHECK(read.available == kept.available);
    CHECK(read.unavailable_reason == kept.unavailable_reason);
    CHECK(read.device == kept.device);
    CHECK(read.name == kept.name);
    CHECK(read.compute_major == kept.compute_major);
    CHECK(read.compute_minor == kept.compute_minor);
    CHECK(read.sm_count == kept.sm_count);
    CHECK(read.memory_bytes == kept.memory_bytes);
    CHECK(read.l2_bytes == kept.l2_bytes);
    CHECK(read.driver_version == kept.driver_version);
    CHECK(read.driver_release == kept.driver_release);
    CHECK(read.runtime_version == kept.runtime_version);
    CHECK(read.pci_bus_id == kept.pci_bus_id);
    CHECK(read.uuid == kept.uuid);
    CHECK(read.peak_fp32_flops == kept.peak_fp32_flops);
    CHECK(read.peak_fp64_flops == kept.peak_fp64_flops);
    CHECK(read.peak_bytes_per_s == kept.peak_bytes_per_s);
    CHECK(read.boost_clock_hz == kept.boost_clock_hz);
    CHECK(read.memory_bus_bits == kept.memory_bus_bits);
}

}  // namespace

TEST_CASE("a GPU's description is kept and read back whole", "[gpu-description-cache]") {
    FakeMachine machine;
    const GpuDescriptionKey key = kept_description_key();
    const GpuInfo gpu = described_gpu();
    const std::optional<GpuInfo> read = cached_gpu_description(key);
    REQUIRE(read);
    check_same_description(*read, gpu);
    CHECK(read->l2_bytes_per_s == 0);  // its own cache holds none
    CHECK_THAT(runner_process::slurp(machine.cache_file()), !Catch::Contains("l2_bytes_per_s"));

    SECTION("its L2 bandwidth comes from the L2 cache, as a probe's does") {
        runner_process::write(machine.cache.dir / "gpu-l2-bandwidth.json",
                              nlohmann::json{{"format", 1},
                                             {"gpus", {{gpu.uuid + " | " + gpu.name + " | format 1",
                                                        {{"bytes_per_s", 1.25e13}, {"l2_bytes", gpu.l2_bytes}}}}}}
                                  .dump());
        CHECK(cached_gpu_description(key)->l2_bytes_per_s == 1.25e13);
    }
    SECTION("the runner's one function answers from it; --reprobe-gpus asks CUDA") {
        CHECK(cached_or_probed_gpu(0).name == gpu.name);
        const GpuInfo probed = cached_or_probed_gpu(0, true);
        CHECK(probed.name != gpu.name);
        // The probe's answer replaces what was kept: kept where the GPU is available, else forgotten.
        CHECK(cached_gpu_description(key).has_value() == probed.available);
    }
}

TEST_CASE("the kernel driver's release, from the version line of either kernel module", "[gpu-description-cache]") {
    test_support::TempFolder folder;
    fake_version(folder.path(), "580.159.04");
    CHECK(driver_release(folder.path()) == "580.159.04");
    runner_process::write(folder.path() / "version",
                          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
                          "(dvs-builder@U16-A24-23-2)  Thu Sep 25 2025\nGCC version:  gcc version 13.3.0\n");
    CHECK(driver_release(folder.path()) == "580.95.05");
    runner_process::write(folder.path() / "version", "NVRM version: something else 1.2\n");
    CHECK(driver_release(folder.path()).empty());
    CHECK(driver_release(folder.path() / "none").empty());
}

TEST_CASE("a description is found again only under the same key", "[gpu-description-cache]") {
    FakeMachine machine;
    const GpuDescriptionKey kept = kept_description_key();
    REQUIRE(gpu_description_key(0));
    CHECK(gpu_description_key(0)->text == kept.text);
    CHECK(cached_gpu_description(*gpu_description_key(0)));
    const auto missed = [](int device = 0) {
        const std::optional<GpuDescriptionKey> key = gpu_description_key(device);
        REQUIRE(key);
        CHECK_FALSE(cached_gpu_description(*key));
        return key->text;
    };
    SECTION("another boot") {
        machine.set_boot_id("0b7e4f2c-1a6d-4e39-8c55-7d3f9a0e6b12");
        missed();
        SECTION("which starts the file afresh") {
            keep_gpu_description(*gpu_description_key(0), described_gpu());
            machine.set_boot_id(kept.boot_id);
            missed();
        }
    }
    SECTION("another driver release") {
        fake_version(machine.driver_folder(), "580.160.01");
        missed();
    }
    SECTION("another GPU listed") {
        fake_listing(machine.listing_folder(), 3);
        missed();
    }
    SECTION("a GPU the driver now excludes") {
        fs::remove_all(machine.listing_folder());
        fake_listing(machine.listing_folder(), 2, 1);
        missed();
    }
    SECTION("CUDA_VISIBLE_DEVICES set, empty or to another GPU") {
        machine.visible.set("0");
        const std::string zero = missed();
        machine.visible.set("");
        CHECK(missed() != zero);
        machine.visible.set("1");
        CHECK(missed() != zero);
    }
    SECTION("CUDA_DEVICE_ORDER set") {
        machine.order.set("PCI_BUS_ID");
        missed();
    }
    SECTION("another device") { missed(1); }
    SECTION("a MIG instance made") {
        fs::create_directories(machine.driver_folder() / "capabilities" / "gpu0" / "mig" / "gi1" / "ci0");
        missed();
    }
    SECTION("another LD_LIBRARY_PATH (another libcuda or libcudart)") {
        ScopedVariable library_path("LD_LIBRARY_PATH", "/usr/local/cuda-compat");
        missed();
    }
}

TEST_CASE("nothing is kept where CUDA's view cannot be told without CUDA", "[gpu-description-cache]") {
    FakeMachine machine;
    REQUIRE(gpu_description_key(0));
    SECTION("no driver listing, no version, no boot id: probed, nothing kept") {
        SECTION("no listing") { fs::remove_all(machine.listing_folder()); }
        SECTION("no version") { fs::remove(machine.driver_folder() / "version"); }
        SECTION("no boot id") { fs::remove(machine.boot_id_file()); }
        SECTION("a boot id that is not one") { machine.set_boot_id(std::string(100, 'x')); }
        CHECK_FALSE(gpu_description_key(0));
        cached_or_probed_gpu(0);
        CHECK_FALSE(fs::exists(machine.cache_file()));
    }
    // Only CUDA can read these (visible_gpu_count): not probed here, as CUDA keeps the first
    // CUDA_VISIBLE_DEVICES it reads for the whole process.
    SECTION("a MIG instance in CUDA_VISIBLE_DEVICES") {
        machine.visible.set("MIG-4b7c9a1e-0f2d-5c3b-8e6a-1d9f0b2c7e45");
        CHECK_FALSE(gpu_description_key(0));
    }
    SECTION("a UUID prefix in CUDA_VISIBLE_DEVICES") {
        machine.visible.set("GPU-0000");
        CHECK_FALSE(gpu_description_key(0));
    }
}

TEST_CASE("an unavailable GPU is never kept, and forgets what was kept", "[gpu-description-cache]") {
    FakeMachine machine;
    const std::optional<GpuDescriptionKey> key = gpu_description_key(0);
    REQUIRE(key);
    GpuInfo unavailable = described_gpu();
    unavailable.available = false;
    unavailable.unavailable_reason = "no usable CUDA driver or device";
    keep_gpu_description(*key, unavailable);
    CHECK_FALSE(fs::exists(machine.cache_file()));
    keep_gpu_description(*key, described_gpu());
    REQUIRE(cached_gpu_description(*key));
    keep_gpu_description(*key, unavailable);
    CHECK_FALSE(cached_gpu_description(*key));
    SECTION("a probe's answer is kept only where the GPU is available") {
        fs::remove(machine.cache_file());
        const GpuInfo probed = cached_or_probed_gpu(0);
        CHECK(cached_gpu_description(*key).has_value() == probed.available);
    }
}

TEST_CASE("a damaged, foreign or huge cache file is ignored and replaced", "[gpu-description-cache]") {
    FakeMachine machine;
    const GpuDescriptionKey key = kept_description_key();
    const std::string written = runner_process::slurp(machine.cache_file());
    nlohmann::json document = nlohmann::json::parse(written);
    nlohmann::json &entry = document["gpus"][key.text];
    const auto write_document = [&] { runner_process::write(machine.cache_file(), document.dump()); };
    bool writable = true;
    SECTION("not JSON") { runner_process::write(machine.cache_file(), "{\"format\": 1, \"boot_id\""); }
    SECTION("truncated") { runner_process::write(machine.cache_file(), written.substr(0, written.size() / 2)); }
    SECTION("empty") { runner_process::write(machine.cache_file(), ""); }
    SECTION("not an object") { runner_process::write(machine.cache_file(), "[1, 2, 3]"); }
    SECTION("another format") {
        document["format"] = 2;
        write_document();
    }
    SECTION("entries not an object") {
        document["gpus"] = nlohmann::json::array({entry});
        write_document();
    }
    SECTION("a field of another type") {
        entry["sm_count"] = "132";
        write_document();
    }
    SECTION("a fraction in a whole-number field") {
        entry["memory_bytes"] = 1.5e300;
        write_document();
    }
    SECTION("a field missing") {
        entry.erase("uuid");
        write_document();
    }
    SECTION("a field too many") {
        entry["shader_count"] = 1;
        write_document();
    }
    SECTION("an entry of an unavailable GPU") {
        entry["available"] = false;
        write_document();
    }
    SECTION("an entry of another device") {
        entry["device"] = 3;
        write_document();
    }
    SECTION("a control character in the name") {
        entry["name"] = "NVIDIA \x1b[2J H200";
        write_document();
    }
    SECTION("a negative peak") {
        entry["peak_fp32_flops"] = -1.0;
        write_document();
    }
    SECTION("over a mebibyte, valid otherwise") {
        document["padding"] = std::string(1 << 20, ' ');
        write_document();
    }
    SECTION("a FIFO in its place (never opened: it would block)") {
        fs::remove(machine.cache_file());
        REQUIRE(mkfifo(machine.cache_file().c_str(), 0600) == 0);
    }
    SECTION("a folder in its place: nothing can be kept, and nothing fails") {
        fs::remove(machine.cache_file());
        fs::create_directories(machine.cache_file() / "inside");
        writable = false;
    }
    SECTION("a cache folder that cannot be made: nothing can be kept, and nothing fails") {
        runner_process::write(machine.cache.dir / "a-file", "");
        ScopedVariable cache_dir("GPUBENCH_CACHE_DIR", (machine.cache.dir / "a-file" / "cache").string());
        CHECK_FALSE(cached_gpu_description(key));
        CHECK_NOTHROW(cached_or_probed_gpu(0));
        CHECK_FALSE(cached_gpu_description(key));
        return;
    }
    CHECK_FALSE(cached_gpu_description(key));
    keep_gpu_description(key, described_gpu());
    CHECK(cached_gpu_description(key).has_value() == writable);
}

TEST_CASE("the runner describes its GPU from the cache, and --reprobe-gpus asks CUDA",
          "[gpu-description-cache][cli]") {
    using namespace runner_process;
    FakeMachine machine(1);  // one GPU: the runner does not narrow its CUDA_VISIBLE_DEVICES
    const GpuDescriptionKey key = kept_description_key();
    const GpuInfo gpu = described_gpu();
    const fs::path path = temp_results("gpu_description_cache");
    const std::string sweep = fixtures() + " --plugin fixture_good --sizes 1" + quick + "-o " + path.string();

    Outcome o = run_runner(sweep);
    INFO(o.output);
    REQUIRE(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("GPU: " + gpu.name));
    CHECK(read_json(path)["gpu"]["uuid"] == gpu.uuid);

    o = run_runner(sweep + " --reprobe-gpus");
    INFO(o.output);
    REQUIRE(o.status == 0);
    CHECK_THAT(o.output, !Catch::Contains(gpu.name));
    CHECK(read_json(path)["gpu"]["uuid"] != gpu.uuid);
    CHECK((!cached_gpu_description(key) || cached_gpu_description(key)->name != gpu.name));
    fs::remove(path);
}
