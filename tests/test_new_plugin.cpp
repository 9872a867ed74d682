// `runner new-plugin DIR --workload NAME`: the SDK's template (sdk/template) written with the
// workload's name, only into a new or empty folder and only for a good name.
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>


#include <filesystem>
#include <set>
#include <string>

using namespace runner_process;
namespace fs = std::filesystem;

namespace {

// The files under `folder`, as paths relative to it.
std::set<std::string> files_under(const fs::path &folder) {
    std::set<std::string> files;
    for (const fs::directory_entry &entry : fs::recursive_directory_iterator(folder))
        if (entry.is_regular_file()) files.insert(entry.path().lexically_relative(folder).string());
    return files;
}

}  // namespace

TEST_CASE("runner new-plugin writes every file of the template with the workload's name", "[cli][new-plugin]") {
    test_support::TempFolder folder;
    const fs::path repo = folder.path() / "newrepo";
    Outcome o = run_runner("new-plugin " + repo.string() + " --workload tmplcheck");
    INFO(o.output);
    REQUIRE(o.status == 0);
    const std::set<std::string> written = files_under(repo);
    CHECK(written == files_under(fs::path(GPUBENCH_SOURCE_DIR) / "sdk" / "template"));
    for (const char *file : {"CMakeLists.txt", "README.md", "workload.hpp", "omp.cpp", "cuda.cu", "numpy.py"})
        CHECK(written.count(file) == 1);
    for (const std::string &file : written) {
        INFO(file);
        CHECK_THAT(slurp(repo / file), !Catch::Contains("@WORKLOAD@"));
        CHECK_THAT(o.output, Catch::Contains((repo / file).string()));
    }
    CHECK_THAT(slurp(repo / "CMakeLists.txt"),
               Catch::Contains("project(tmplcheck LANGUAGES CXX)") &&
                   Catch::Contains("gpubench_add_plugin(tmplcheck_omp SOURCES omp.cpp") &&
                   Catch::Contains("gpubench_add_plugin(tmplcheck_cuda SOURCES cuda.cu)") &&
                   Catch::Contains("gpubench_add_python_plugin(tmplcheck_numpy SCRIPT numpy.py)") &&
                   Catch::Contains("check --plugin-dir \"${CMAKE_BINARY_DIR}\" \"tmplcheck_*\""));
    CHECK_THAT(slurp(repo / "omp.cpp"), Catch::Contains("\"tmplcheck_omp\""));
    CHECK_THAT(slurp(repo / "cuda.cu"), Catch::Contains("\"tmplcheck_cuda\""));
    CHECK_THAT(slurp(repo / "workload.hpp"), Catch::Contains("\"tmplcheck\""));
    CHECK_THAT(o.output, Catch::Contains("cmake -S " + repo.string()) &&
                             Catch::Contains("ctest --test-dir " + (repo / "build").string()));

    // An empty folder that exists is as good as a new one.
    const fs::path empty = folder.path() / "empty";
    fs::create_directories(empty);
    Outcome into_empty = run_runner("new-plugin " + empty.string() + " --workload w2");
    INFO(into_empty.output);
    CHECK(into_empty.status == 0);
    CHECK(files_under(empty) == written);
}

TEST_CASE("runner new-plugin refuses a bad name or folder in one line, exit 2, and writes nothing", "[cli][new-plugin]") {
    test_support::TempFolder folder;
    const fs::path repo = folder.path() / "repo";
    Outcome bad_name = run_runner("new-plugin " + repo.string() + " --workload Bad-Name");
    CHECK(bad_name.status == 2);
    CHECK(test_support::line_count(bad_name.output) == 1);
    CHECK_THAT(bad_name.output, Catch::StartsWith("runner new-plugin: error: --workload 'Bad-Name': expected"));
    CHECK_FALSE(fs::exists(repo));
    for (const char *name : {"1st", "_x", "x-y", "abcdefghijklmnopqrstuvwxyz012345"}) {  // the last: 32 long
        INFO(name);
        CHECK(run_runner("new-plugin " + repo.string() + " --workload " + name).status == 2);
    }
    CHECK(run_runner("new-plugin " + repo.string()).status == 2);  // no --workload
    CHECK(run_runner("new-plugin --workload fine").status == 2);   // no folder
    CHECK_FALSE(fs::exists(repo));

    fs::create_directories(repo);
    write(repo / "mine.txt", "kept\n");
    Outcome not_empty = run_runner("new-plugin " + repo.string() + " --workload fine");
    CHECK(not_empty.status == 2);
    CHECK(test_support::line_count(not_empty.output) == 1);
    CHECK_THAT(not_empty.output,
               Catch::StartsWith("runner new-plugin: error: " + repo.string()) && Catch::Contains("is not empty"));
    CHECK(files_under(repo) == std::set<std::string>{"mine.txt"});
    CHECK(slurp(repo / "mine.txt") == "kept\n");

    Outcome a_file = run_runner("new-plugin " + (repo / "mine.txt").string() + " --workload fine");
    CHECK(a_file.status == 2);
    CHECK_THAT(a_file.output, Catch::Contains("exists and is not a folder"));
}
