// The plugins' cache of CPU references (plugins/common/reference_cache.hpp): a value comes
// back only under its own key, whole and unchanged; anything else is a miss.
#include "reference_cache.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace cache = gpubench::reference_cache;

namespace {

const std::vector<double> kValues = {1.5, -2.25, 3e-300, 0.0, 42.0};

std::filesystem::path only_file(const std::filesystem::path &dir) {
    std::vector<std::filesystem::path> files;
    for (const auto &entry : std::filesystem::directory_iterator(dir / "references"))
        files.push_back(entry.path());
    REQUIRE(files.size() == 1);
    return files.front();
}

std::vector<char> bytes_of(const std::filesystem::path &file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path &file, const std::vector<char> &bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
}

bool loads(const std::string &key) {
    std::vector<double> read(kValues.size(), -1.0);
    return cache::load(key, read.data(), read.size()) && read == kValues;
}

}  // namespace

TEST_CASE("a stored reference is read back under its key and no other") {
    test_support::TempCacheDir dir;
    CHECK_FALSE(loads("k"));
    cache::store("k", kValues.data(), kValues.size());
    CHECK(loads("k"));
    CHECK_FALSE(loads("k2"));
    std::vector<double> longer(kValues.size() + 1);
    CHECK_FALSE(cache::load("k", longer.data(), longer.size()));
    std::vector<float> narrower(kValues.size());
    CHECK_FALSE(cache::load("k", narrower.data(), narrower.size()));
}

TEST_CASE("a damaged reference file is a miss, never a wrong value") {
    test_support::TempCacheDir dir;
    cache::store("k", kValues.data(), kValues.size());
    const auto file = only_file(dir.dir);
    const std::vector<char> good = bytes_of(file);
    SECTION("a flipped bit in the values") {
        std::vector<char> bad = good;
        bad[good.size() - 8 - 3] ^= 0x10;
        write_bytes(file, bad);
    }
    SECTION("cut short") { write_bytes(file, {good.begin(), good.end() - 5}); }
    SECTION("something after the end") {
        std::vector<char> bad = good;
        bad.push_back('x');
        write_bytes(file, bad);
    }
    SECTION("another key's file under this key's name") {
        cache::store("other", kValues.data(), kValues.size());
        std::filesystem::path other;
        for (const auto &entry : std::filesystem::directory_iterator(dir.dir / "references"))
            if (entry.path() != file) other = entry.path();
        std::filesystem::rename(other, file);
    }
    SECTION("not a reference file") { write_bytes(file, {'{', '}'}); }
    CHECK_FALSE(loads("k"));
}

TEST_CASE("without a cache folder, or switched off, nothing is cached") {
    test_support::TempCacheDir dir;
    SECTION("GPUBENCH_REFERENCE_CACHE=0") { setenv("GPUBENCH_REFERENCE_CACHE", "0", 1); }
    SECTION("no GPUBENCH_CACHE_DIR") { unsetenv("GPUBENCH_CACHE_DIR"); }
    cache::store("k", kValues.data(), kValues.size());
    CHECK_FALSE(loads("k"));
    CHECK_FALSE(std::filesystem::exists(dir.dir / "references"));
    unsetenv("GPUBENCH_REFERENCE_CACHE");
}

TEST_CASE("load_or_compute computes once and then reads") {
    test_support::TempCacheDir dir;
    int computed = 0;
    const auto compute = [&](double *values) {
        ++computed;
        std::copy(kValues.begin(), kValues.end(), values);
    };
    std::vector<double> first(kValues.size()), second(kValues.size());
    CHECK_FALSE(cache::load_or_compute("k", first.data(), first.size(), compute));
    CHECK(cache::load_or_compute("k", second.data(), second.size(), compute));
    CHECK(computed == 1);
    CHECK(first == kValues);
    CHECK(second == kValues);
}

TEST_CASE("an input fingerprint changes with any byte and with the length") {
    std::vector<unsigned char> data(3 << 20);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 131);
    const uint64_t base = cache::fingerprint(data.data(), data.size());
    CHECK(cache::fingerprint(data.data(), data.size()) == base);
    for (size_t at : {size_t{0}, size_t{1} << 20, data.size() - 1}) {
        data[at] ^= 1;
        CHECK(cache::fingerprint(data.data(), data.size()) != base);
        data[at] ^= 1;
    }
    CHECK(cache::fingerprint(data.data(), data.size() - 1) != base);
}

TEST_CASE("a workload's backends verify against the reference the first one computed", "[cli]") {
    const std::filesystem::path plugins(GPUBENCH_PLUGIN_DIR);
    for (const char *name : {"solvebak_naive.so", "solvebak_omp.so", "logreg_omp.so"})
        if (!std::filesystem::exists(plugins / name))
            test_support::skip_test(std::string(name) + " was not built (no OpenMP)");
    // The runner exports its cache folder to the workers: the test's own folder here.
    test_support::TempCacheDir dir;
    const auto path = runner_process::temp_results("reference_cache");
    const auto sweep = [&](const std::string &plugin, const std::string &sizes) {
        const auto o = runner_process::run_runner(
            "--plugin-dir " + plugins.string() + " --plugin " + plugin + " --sizes " + sizes +
            " --max-time 0.05 --warmup 1 -o " + path.string());
        INFO(o.output);
        REQUIRE(o.status == 0);
        std::vector<std::string> details;
        const nlohmann::json results = runner_process::read_json(path);
        for (const auto &entry : results["entries"]) {
            REQUIRE(entry["status"] == "ok");
            details.push_back(entry["verification"]["detail"].get<std::string>());
        }
        return details;
    };
    const auto cached = Catch::Contains("(cached)");
    CHECK_THAT(sweep("solvebak_omp", "2000")[0], !cached);
    CHECK_THAT(sweep("solvebak_naive", "2000")[0], cached);
    CHECK_THAT(sweep("logreg_omp", "600")[0], !cached);
    CHECK_THAT(sweep("logreg_omp", "600")[0], cached);
    std::filesystem::remove(path);
}
