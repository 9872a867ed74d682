// Shared by the test files: paths the build passes in, and skipping with a reason.
#pragma once

#include "gpu.hpp"
#include "measure.hpp"
#include "plugin_catalog.hpp"
#include "plugin_library.hpp"
#include "shard.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace test_support {

inline std::filesystem::path fixture(const std::string &file) {
    return std::filesystem::path(GPUBENCH_FIXTURE_DIR) / file;
}

// A fresh, empty cache folder named by GPUBENCH_CACHE_DIR while it lives.
struct TempCacheDir {
    std::filesystem::path dir;
    TempCacheDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "gpubench-cache-XXXXXX").string();
        REQUIRE(mkdtemp(pattern.data()) != nullptr);
        dir = pattern;
        setenv("GPUBENCH_CACHE_DIR", dir.c_str(), 1);
    }
    TempCacheDir(const TempCacheDir &) = delete;
    TempCacheDir &operator=(const TempCacheDir &) = delete;
    ~TempCacheDir() {
        unsetenv("GPUBENCH_CACHE_DIR");
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

// Options that sample between `min_samples` and `max_samples` times, with no minimum time and
// no noise criterion: quick, and a known number of samples.
inline gpubench::MeasureOptions sampled(size_t min_samples, size_t max_samples) {
    gpubench::MeasureOptions options;
    options.min_samples = min_samples;
    options.max_samples = max_samples;
    options.min_time_s = 0;
    options.max_noise = 0;
    return options;
}

// A host clock that claims CUDA devices and streams (fake pointers, never used): what the
// runner hands a plugin from a timer across devices, and the GPU path of sampling (host time
// per call), without a GPU. `energy_mj`: a made-up energy counter of the first device.
class ClaimedDevicesTimer final : public gpubench::PhaseTimer {
public:
    using EnergyCounter = std::function<std::optional<uint64_t>()>;
    explicit ClaimedDevicesTimer(std::vector<int> devices, EnergyCounter energy_mj = {})
        : devices_(std::move(devices)), energy_mj_(std::move(energy_mj)) {
        for (size_t i = 0; i < devices_.size(); ++i)
            streams_.push_back(reinterpret_cast<void *>(0x1000 * (i + 1)));
    }
    const char *clock_name() const override { return "claimed_devices"; }
    void *cuda_stream() const override { return streams_.front(); }
    std::vector<int> cuda_devices() const override { return devices_; }
    std::vector<void *> cuda_streams() const override { return streams_; }
    std::optional<uint64_t> gpu_energy_mj() const override { return energy_mj_ ? energy_mj_() : std::nullopt; }
    void start() override { clock_.start(); }
    double stop() override { return clock_.stop(); }

private:
    std::vector<int> devices_;
    EnergyCounter energy_mj_;
    std::vector<void *> streams_;
    gpubench::SteadyClockTimer clock_;
};

// A plugin file, loaded; the test fails (with the reason) when it is refused.
inline gpubench::Plugin load_file(const std::filesystem::path &file) {
    auto loaded = gpubench::load_plugin(file);
    if (auto *r = std::get_if<gpubench::Refusal>(&loaded)) FAIL(file << " refused: " << r->reason);
    return std::move(std::get<gpubench::Plugin>(loaded));
}

inline gpubench::Plugin load_fixture(const std::string &file) { return load_file(fixture(file)); }

// What create() handed a plugin class made with the C++ helper (its static Setup `last`), the
// instance destroyed again at once.
template <class T>
gpubench::Setup setup_given(const gpubench_plugin &plugin, const gpubench_setup_args &args) {
    gpubench_instance *instance = nullptr;
    char message[128] = "";
    REQUIRE(plugin.create(&args, &instance, message, sizeof message) == GPUBENCH_OK);
    plugin.destroy(instance);
    return T::last;
}

// Discovery in `dirs` as the runner does it (scanned by the built runner), without the cache
// unless one is given.
inline gpubench::PluginSearch search_in(std::vector<std::filesystem::path> dirs) {
    gpubench::PluginSearch search;
    search.dirs = std::move(dirs);
    search.scan.runner = GPUBENCH_RUNNER;
    return search;
}

// A private folder (mode 0700) made for a test and removed with everything in it at the end;
// `suffix` is appended to its name.
class TempFolder {
public:
    explicit TempFolder(const std::string &suffix = "") {
        char name[] = "/tmp/gpubench-test-XXXXXX";
        if (!mkdtemp(name)) FAIL("mkdtemp failed");
        path_ = std::string(name) + suffix;
        if (!suffix.empty()) std::filesystem::rename(name, path_);
    }
    ~TempFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempFolder(const TempFolder &) = delete;
    TempFolder &operator=(const TempFolder &) = delete;
    const std::filesystem::path &path() const { return path_; }

private:
    std::filesystem::path path_;
};

// Sets an environment variable while this lives (the fixtures read theirs in the test's
// process), and unsets it after.
class ScopedEnv {
public:
    ScopedEnv(const char *name, const char *value) : name_(name) { setenv(name, value, 1); }
    ~ScopedEnv() { unsetenv(name_.c_str()); }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
    std::string name_;
};

// An environment of `variables` alone, as the launchers' variables are looked up.
inline gpubench::EnvironmentLookup environment(std::map<std::string, std::string> variables) {
    return [variables = std::move(variables)](const std::string &name) -> std::optional<std::string> {
        const auto found = variables.find(name);
        return found == variables.end() ? std::nullopt : std::optional<std::string>(found->second);
    };
}

inline size_t line_count(const std::string &text) {
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A measured entry's metrics by name.
inline std::map<std::string, double> metrics_of(const gpubench::Measurement &e) {
    std::map<std::string, double> out;
    for (const gpubench::Metric &m : e.metrics) out[m.name] = m.value;
    return out;
}

// The metric `name` of a results file's entry; the test fails when it has none.
inline double metric(const nlohmann::json &entry, const std::string &name) {
    for (const nlohmann::json &m : entry["metrics"])
        if (m["name"] == name) return m["value"].get<double>();
    FAIL("no metric " << name << " in " << entry.dump());
    return 0;
}

// In a sanitized build (GPUBENCH_SANITIZE, scripts/test-sanitized.sh), a deliberate crash by
// SIGSEGV or SIGBUS is caught by AddressSanitizer, which reports it on stderr and exits with
// status 1 instead of dying of the signal: the tests that crash a fixture accept that.
#ifdef GPUBENCH_SANITIZED
inline constexpr bool sanitized_build = true;
#else
inline constexpr bool sanitized_build = false;
#endif

// ctest marks a test that exits with this code as skipped (SKIP_RETURN_CODE), showing the
// reason printed here. Catch2 v2 has no SKIP of its own; each ctest test runs one test case.
inline constexpr int skip_exit_code = 77;

// Processes that spin on every core until destroyed: "the rest of the machine" taking the
// CPUs (threads of the test itself would count as its own load).
class SpinningProcesses {
public:
    explicit SpinningProcesses(unsigned count) {
        for (unsigned i = 0; i < count; ++i) {
            const pid_t pid = fork();
            if (pid == 0) {
                volatile unsigned long n = 0;
                for (;;) n = n + 1;
            }
            if (pid > 0) pids_.push_back(pid);
        }
    }
    ~SpinningProcesses() {
        for (pid_t pid : pids_) kill(pid, SIGKILL);
        for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
    }
    SpinningProcesses(const SpinningProcesses &) = delete;
    SpinningProcesses &operator=(const SpinningProcesses &) = delete;

private:
    std::vector<pid_t> pids_;
};

[[noreturn]] inline void skip_test(const std::string &reason) {
    std::printf("SKIPPED: %s\n", reason.c_str());
    std::fflush(stdout);
    std::_Exit(skip_exit_code);
}

// For a test that measures on the GPU: skipped with the reason where there is none; else
// this test process takes the GPU alone until it ends (an exclusive lock on a file that
// every such test takes), so that ctest -j runs the GPU tests one at a time. Two tests on
// one GPU see each other's work in the device-wide readings (the stream audit's drain, the
// device's used memory), which the runner rightly cannot attribute.
inline void require_gpu() {
#ifndef GPUBENCH_HAVE_CUDA
    skip_test("gpubench was built without the CUDA toolkit");
#endif
    const gpubench::GpuInfo gpu = gpubench::probe_gpu(0);
    if (!gpu.available) skip_test("no usable CUDA GPU: " + gpu.unavailable_reason);
    static const int lock = [] {
        const std::string path = std::filesystem::temp_directory_path() / "gpubench-tests-gpu.lock";
        const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd >= 0) flock(fd, LOCK_EX);  // released when the process ends
        return fd;
    }();
    (void)lock;
}

}  // namespace test_support
