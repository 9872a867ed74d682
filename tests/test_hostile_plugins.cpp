// The runner as a user starts it, with hostile files where it looks for plugins: it lists
// them as refused, measures the real plugins beside them, and never looks in the current
// folder or in folders others can write.
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace runner_process;
namespace fs = std::filesystem;
using test_support::TempFolder;

namespace {

const std::string shipped_plugin = "vecadd_omp";
std::string shipped_file() { return std::string(GPUBENCH_PLUGIN_DIR) + "/" + shipped_plugin + ".so"; }

}  // namespace

TEST_CASE("runner --list with hostile files on the plugin path lists them as refused, and the rest",
          "[cli][hostile]") {
    const Outcome list = run_runner(std::string("--list --scan-timeout 2 --rescan-plugins --plugin-dir ") +
                                    GPUBENCH_HOSTILE_DIR);
    INFO(list.output);
    CHECK(list.status == 0);
    CHECK_THAT(list.output, Catch::Contains(shipped_plugin + " "));  // the built-in plugins too
    CHECK_THAT(list.output, Catch::Contains("Refused:"));
    CHECK_THAT(list.output, Catch::Contains("hostile_constructor_exit.so: exited with status 0"));
    CHECK_THAT(list.output, Catch::Contains("hostile_constructor_hang.so: still loading the library"));
    CHECK_THAT(list.output, Catch::Contains("hostile_huge_struct_size.so: descriptor struct_size"));
    CHECK_THAT(list.output, Catch::Contains("hostile_truncated.so: "));
}

TEST_CASE("a sweep with hostile files beside a real plugin measures the real one", "[cli][hostile]") {
    // Named like the real plugin, so that --plugin 'vecadd_*' scans every one of them.
    TempFolder folder;
    for (const auto &item : fs::directory_iterator(GPUBENCH_HOSTILE_DIR))
        fs::copy_file(item.path(), folder.path() / ("vecadd_" + item.path().filename().string()));
    const fs::path out = temp_results("hostile_sweep");
    const Outcome sweep = run_command("GPUBENCH_PLUGIN_PATH=" + folder.path().string() + " " +
                                      GPUBENCH_RUNNER + " --plugin 'vecadd_*' --sizes 1000 --scan-timeout 2 "
                                      "--rescan-plugins -o " + out.string() + quick);
    INFO(sweep.output);
    CHECK((sweep.status == 0 || sweep.status == 3));  // 3: vecadd_cuda skipped without a GPU
    CHECK_THAT(sweep.output, Catch::Contains("files were refused as plugins"));
    const nlohmann::json results = read_json(out);
    bool measured = false;
    for (const auto &entry : results["entries"])
        if (entry["plugin"] == shipped_plugin) measured = entry["status"] == "ok";
    CHECK(measured);
    fs::remove(out);
}

TEST_CASE("relative entries of GPUBENCH_PLUGIN_PATH are ignored with a warning: never the current folder",
          "[cli][hostile]") {
    TempFolder folder;
    // A copy of the misbehaving fixture in the current folder: loading it would show.
    fs::copy_file(test_support::fixture("fixture_misbehave.so"), folder.path() / "fixture_misbehave.so");
    const Outcome list = run_command("cd " + folder.path().string() + " && GPUBENCH_PLUGIN_PATH=.:lib " +
                                     GPUBENCH_RUNNER + " --list");
    INFO(list.output);
    CHECK(list.status == 0);
    CHECK_THAT(list.output, Catch::Contains("warning: GPUBENCH_PLUGIN_PATH entry '.' is relative"));
    CHECK_THAT(list.output, Catch::Contains("warning: GPUBENCH_PLUGIN_PATH entry 'lib' is relative"));
    CHECK_THAT(list.output, !Catch::Contains("fixture_misbehave"));
}

TEST_CASE("a plugin folder anyone can write is refused unless --allow-insecure-plugins", "[cli][hostile]") {
    TempFolder folder;
    fs::copy_file(test_support::fixture("fixture_good.so"), folder.path() / "fixture_good.so");
    chmod(folder.path().c_str(), 0777);
    const std::string path = "GPUBENCH_PLUGIN_PATH=" + folder.path().string() + " ";
    const Outcome refused = run_command(path + GPUBENCH_RUNNER + " --list");
    INFO(refused.output);
    CHECK_THAT(refused.output, Catch::Contains("plugin folder writable by everyone (mode 0777)"));
    const Outcome run = run_command(path + GPUBENCH_RUNNER + " --plugin fixture_good --sizes 10");
    CHECK(run.status == 2);
    CHECK_THAT(run.output, Catch::Contains("no plugin matches 'fixture_good'"));
    const fs::path out = temp_results("insecure_allowed");
    const Outcome allowed = run_command(path + GPUBENCH_RUNNER + " --allow-insecure-plugins "
                                        "--plugin fixture_good --sizes 10 -o " + out.string() + quick);
    CHECK(allowed.status == 0);
    fs::remove(out);
}

TEST_CASE("a plugin folder whose path is not UTF-8 is used, and its path recorded escaped", "[cli][hostile]") {
    TempFolder folder("-caf\xE9");  // Latin-1, not UTF-8
    fs::copy_file(shipped_file(), folder.path() / (shipped_plugin + ".so"));
    const fs::path out = temp_results("non_utf8_path");
    const Outcome run = run_command("GPUBENCH_PLUGIN_PATH='" + folder.path().string() + "' " + GPUBENCH_RUNNER +
                                    " --plugin " + shipped_plugin + " --sizes 1000 -o " + out.string() + quick);
    INFO(run.output);
    CHECK(run.status == 0);
    const nlohmann::json results = read_json(out);
    REQUIRE(results["plugins"].size() == 1);
    CHECK_THAT(results["plugins"][0]["file"].get<std::string>(), Catch::Contains("-caf\\xE9"));
    fs::remove(out);
}
