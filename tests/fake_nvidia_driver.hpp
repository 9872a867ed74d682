// A made-up NVIDIA driver as /proc shows it, for the tests that read it without starting CUDA
// (visible_devices.hpp, gpu_description_cache.hpp): its GPU listing, its version file, and
// variables set for a test's scope.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace fake_nvidia_driver {

inline std::string uuid_of(int gpu) { return "GPU-00000000-0000-0000-0000-0000000000" + std::to_string(10 + gpu); }

// /proc/driver/nvidia/gpus as the driver writes it: one folder per GPU, by PCI bus id.
// `excluded`: a GPU the driver keeps from CUDA.
inline void fake_listing(const std::filesystem::path &folder, int gpus, int excluded = -1) {
    for (int gpu = 0; gpu < gpus; ++gpu) {
        const std::filesystem::path bus = folder / ("0000:" + std::to_string(18 + gpu) + ":00.0");
        std::filesystem::create_directories(bus);
        std::ofstream(bus / "information") << "Model: \t\t NVIDIA H200\nIRQ:   \t\t 17\nGPU UUID: \t " << uuid_of(gpu)
                                           << "\nBus Location: \t " << bus.filename().string()
                                           << "\nDevice Minor: \t " << gpu
                                           << "\nGPU Excluded:\t " << (gpu == excluded ? "Yes" : "No") << "\n";
    }
}

// /proc/driver/nvidia/version of the kernel driver `release`.
inline void fake_version(const std::filesystem::path &driver_folder, const std::string &release) {
    std::ofstream(driver_folder / "version") << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " << release
                                             << "  Tue Apr 29 05:14:48 UTC 2025\nGCC version:  gcc version 12.2.0\n";
}

// An environment variable set (or unset: nullopt) while this lives, its value restored after.
class ScopedVariable {
public:
    ScopedVariable(const char *name, const std::optional<std::string> &value) : name_(name) {
        if (const char *old = std::getenv(name)) old_ = old;
        set(value);
    }
    ~ScopedVariable() { set(old_); }
    ScopedVariable(const ScopedVariable &) = delete;
    ScopedVariable &operator=(const ScopedVariable &) = delete;
    void set(const std::optional<std::string> &value) {
        if (value) setenv(name_.c_str(), value->c_str(), 1);
        else unsetenv(name_.c_str());
    }

private:
    std::string name_;
    std::optional<std::string> old_;
};

}  // namespace fake_nvidia_driver
