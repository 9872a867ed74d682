// Build records: the compile timer keeps the compiler's output and exit status and records
// the time; every in-tree plugin has a record with the right lines of code; the line rule on
// a file with every kind of comment; hostile record files are ignored with a note; and the
// results carry the record and pass the schema.
#include "build_record.hpp"
#include "plugin_catalog.hpp"
#include "results.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>

using namespace gpubench;
using namespace runner_process;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path sdk_cmake = fs::path(GPUBENCH_SOURCE_DIR) / "sdk" / "cmake";
const std::string timer = "sh " + (sdk_cmake / "gpubench_build_timer.sh").string();

// A tool the build found, or the one of that name on PATH where the build folder travelled
// to another machine; skipped when there is none.
std::string tool(const std::string &built) {
    if (access(built.c_str(), X_OK) == 0) return built;
    const Outcome found = run_command("command -v " + fs::path(built).filename().string());
    if (found.status != 0) test_support::skip_test(built + " is not on this machine");
    return found.output.substr(0, found.output.find('\n'));
}

// The lines of code of a file with "//" comments only, counted here without the build's script.
uint64_t lines_of_code(const fs::path &path) {
    std::istringstream in(slurp(path));
    uint64_t count = 0;
    for (std::string line; std::getline(in, line);) {
        const size_t first = line.find_first_not_of(" \t\r");
        if (first != std::string::npos && line.compare(first, 2, "//") != 0) ++count;
    }
    return count;
}

}  // namespace

TEST_CASE("the compile timer records a compile, and keeps a failing compiler's output and status",
          "[build-record]") {
    const std::string cxx = tool(GPUBENCH_CXX_COMPILER);
    test_support::TempFolder dir;
    const fs::path good = dir.path() / "good.cpp", bad = dir.path() / "bad.cpp";
    write(good, "int twice(int x) { return 2 * x; }\n");
    write(bad, "int broken( { return; }\n");
    const fs::path object = dir.path() / "good.o";
    Outcome o = run_command(timer + " --object " + cxx + " -c " + good.string() + " -o " + object.string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.empty());
    CHECK(fs::exists(object));
    const double seconds = std::stod(slurp(object.string() + ".compile_s"));
    CHECK(seconds > 0);
    CHECK(seconds < 60);

    const fs::path bad_object = dir.path() / "bad.o";
    const std::string compile_bad = cxx + " -c " + bad.string() + " -o " + bad_object.string();
    const Outcome direct = run_command(compile_bad);
    REQUIRE(direct.status != 0);
    o = run_command(timer + " --object " + compile_bad);
    CHECK(o.status == direct.status);
    CHECK(o.output == direct.output);  // the compiler's diagnostics, nothing added
    CHECK_FALSE(fs::exists(bad_object.string() + ".compile_s"));
    // Any status passes through, and a record that cannot be written fails nothing.
    o = run_command(timer + " --record /nonexistent/folder/x.link_s sh -c 'echo out; exit 7'");
    CHECK(o.status == 7);
    CHECK(o.output == "out\n");
}

TEST_CASE("every in-tree plugin has a build record: language, compile time, its own and shared lines",
          "[build-record]") {
    size_t plugins = 0;
    for (const auto &item : fs::directory_iterator(GPUBENCH_PLUGIN_DIR)) {
        if (item.path().extension() != ".so") continue;
        INFO(item.path());
        const BuildRecordRead read = read_build_record(item.path());
        CHECK(read.note.empty());
        REQUIRE(read.record);
        CHECK(std::set<std::string>{"C", "C++", "CUDA", "Python"}.count(read.record->language));
        CHECK(read.record->source_lines > 0);
        CHECK(!read.record->source_files.empty());
        ++plugins;
    }
    CHECK(plugins >= 10);

    const fs::path plugins_dir = fs::path(GPUBENCH_SOURCE_DIR) / "plugins" / "matmul";
    const BuildRecordRead naive = read_build_record(fs::path(GPUBENCH_PLUGIN_DIR) / "matmul_naive.so");
    REQUIRE(naive.record);
    const BuildRecord &r = *naive.record;
    CHECK(r.language == "C++");
    CHECK(r.source_files == std::vector<std::string>{"plugins/matmul/naive.cpp"});
    CHECK(r.source_lines == lines_of_code(plugins_dir / "naive.cpp"));
    CHECK(r.shared_files == std::vector<std::string>{"plugins/matmul/matmul_common.cpp",
                                                     "plugins/matmul/matmul_common.hpp",
                                                     "plugins/matmul/matmul_gpu.hpp"});
    CHECK(r.shared_lines == lines_of_code(plugins_dir / "matmul_common.cpp") +
                                lines_of_code(plugins_dir / "matmul_common.hpp") +
                                lines_of_code(plugins_dir / "matmul_gpu.hpp"));
    // Timed by the launcher: its own file and link, and the shared library once.
    REQUIRE(r.compile_s);
    CHECK(*r.compile_s > 0);
    REQUIRE(r.shared_compile_s);
    CHECK(*r.shared_compile_s > 0);
#ifdef GPUBENCH_HAVE_CUDA
    const BuildRecordRead cuda = read_build_record(fs::path(GPUBENCH_PLUGIN_DIR) / "matmul_cuda.so");
    REQUIRE(cuda.record);
    CHECK(cuda.record->language == "CUDA");
    CHECK(cuda.record->shared_files == r.shared_files);
#endif
}

TEST_CASE("a line of code is neither blank nor only a comment, in C-like and Python files",
          "[build-record]") {
    const std::string cmake = tool(GPUBENCH_CMAKE);
    test_support::TempFolder dir;
    // Each line says whether it counts; brackets, ';' and '\' must not upset CMake's lists.
    write(dir.path() / "mixed.cpp",
          "// a comment: no\n"
          "#include <vector>   \n"   // yes 1
          "\n"
          "/* a block: no\n"
          "   still in it: no\n"
          "*/\n"                     // no
          "int a; // yes 2\n"
          "/* before */ int b;\n"    // yes 3
          "int c; /* opens\n"        // yes 4
          "   closes */ int d;\n"    // yes 5
          "   /* a */ /* b */\n"     // no
          "x = \"[;]\\\\\";  /* c */\n"  // yes 6
          "\t \n"                    // no
          "}\n");                    // yes 7
    write(dir.path() / "script.py",
          "#!/usr/bin/env python3\n"
          "# comment\n"
          "import numpy\n"           // yes 1
          "\n"
          "def run():  # yes 2\n"
          "    \"\"\"docstring: code\"\"\"\n"  // yes 3
          "    return 1\n");         // yes 4
    write(dir.path() / "o.o.compile_s", "0.250000\n");
    write(dir.path() / "link_s", "1.000001\n");
    const fs::path record = dir.path() / "plugin.so.build.json";
    write(dir.path() / "arguments.cmake",
          "set(RECORD [==[" + record.string() + "]==])\nset(LANGUAGE Python)\n"
          "set(COMPILE_KEY bridge_compile_s)\nset(BACKEND_FILES [==[" +
              (dir.path() / "script.py").string() + "]==])\nset(SHARED_FILES [==[" +
              (dir.path() / "mixed.cpp").string() + "]==])\nset(OBJECTS [==[" +
              (dir.path() / "o.o").string() + "]==])\nset(LINK_RECORD [==[" +
              (dir.path() / "link_s").string() + "]==])\nset(SHARED_OBJECTS \"\")\nset(BASE_DIR [==[" +
              dir.path().string() + "]==])\n");
    const Outcome o = run_command(cmake + " -DGPUBENCH_RECORD_ARGUMENTS=" +
                                  (dir.path() / "arguments.cmake").string() + " -P " +
                                  (sdk_cmake / "gpubench_build_record.cmake").string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const json written = json::parse(slurp(record));
    CHECK(build_record_violation(written).empty());
    const BuildRecord r = build_record_from_json(written);
    CHECK(r.language == "Python");
    CHECK(r.source_files == std::vector<std::string>{"script.py"});
    CHECK(r.source_lines == 4);
    CHECK(r.shared_files == std::vector<std::string>{"mixed.cpp"});
    CHECK(r.shared_lines == 7);
    CHECK_FALSE(r.compile_s);  // a bridge's time is not the script's
    REQUIRE(r.bridge_compile_s);
    CHECK(*r.bridge_compile_s == Approx(1.250001));
    // A missing object record: no compile time rather than a part of it.
    fs::remove(dir.path() / "o.o.compile_s");
    REQUIRE(run_command(cmake + " -DGPUBENCH_RECORD_ARGUMENTS=" +
                        (dir.path() / "arguments.cmake").string() + " -P " +
                        (sdk_cmake / "gpubench_build_record.cmake").string())
                .status == 0);
    CHECK_FALSE(json::parse(slurp(record)).contains("bridge_compile_s"));
}

TEST_CASE("a hostile build record is ignored with a note, and the plugin still loads",
          "[build-record]") {
    test_support::TempFolder dir;
    const fs::path plugin = dir.path() / "fixture_good.so";
    fs::copy_file(test_support::fixture("fixture_good.so"), plugin);
    const fs::path record = build_record_path(plugin);
    const json valid = {{"language", "C"},    {"source_files", {"good.c"}}, {"source_lines", 40},
                        {"shared_files", json::array()}, {"shared_lines", 0}, {"compile_s", 0.5}};
    const auto with = [&](const char *key, json value) {
        json changed = valid;
        changed[key] = std::move(value);
        return changed.dump();
    };
    const std::vector<std::pair<std::string, std::string>> cases = {
        {std::string(max_build_record_bytes + 1, ' '), "larger than 64 KiB"},
        {valid.dump() + std::string(max_build_record_bytes, ' '), "larger than 64 KiB"},
        {"this is not JSON", "not JSON"},
        {valid.dump().substr(0, 30), "not JSON"},
        {"", "empty"},
        {"[1, 2]", "expected an object, got an array"},
        {with("source_lines", "many"), "/source_lines: expected an integer"},
        {with("source_lines", -3), "/source_lines: -3 is below the minimum 0"},
        {with("source_lines", 1.5), "/source_lines: expected an integer"},
        {with("compile_s", -1), "/compile_s: -1 is below the minimum 0"},
        {with("compile_s", "1 s"), "/compile_s: expected a number"},
        {with("language", 5), "/language: expected a string"},
        {with("source_files", {1, 2}), "/source_files/0: expected a string"},
        {json{{"language", "C"}}.dump(), "required field 'source_files' missing"},
        {"{\"a\": " + std::string(10000, '[') + std::string(10000, ']') + "}", "nested deeper"},
        {"{\"language\": \"\xff\"}", "not JSON"},
    };
    for (const auto &[content, says] : cases) {
        INFO(says);
        write(record, content);
        const BuildRecordRead read = read_build_record(plugin);
        CHECK_FALSE(read.record);
        CHECK_THAT(read.note, Catch::StartsWith("fixture_good.so.build.json ignored: ") &&
                                  Catch::Contains(says));
    }
    // Not a regular file: a FIFO (which would block a reader), a folder, a device.
    fs::remove(record);
    REQUIRE(mkfifo(record.c_str(), 0600) == 0);
    CHECK_THAT(read_build_record(plugin).note, Catch::Contains("not a regular file"));
    fs::remove(record);
    fs::create_directory(record);
    CHECK_THAT(read_build_record(plugin).note, Catch::Contains("not a regular file"));
    fs::remove(record);
    fs::create_symlink("/dev/zero", record);
    CHECK_THAT(read_build_record(plugin).note, Catch::Contains("not a regular file"));
    fs::remove(record);
    // None at all: nothing to note. Control characters in a good one are made printable.
    CHECK(read_build_record(plugin).note.empty());
    CHECK_FALSE(read_build_record(plugin).record);
    write(record, with("language", "C\x1b[31m"));
    const BuildRecordRead printable = read_build_record(plugin);
    REQUIRE(printable.record);
    CHECK(printable.record->language == "C\\x1B[31m");

    // Discovery keeps the plugin and the note; the results carry them and pass the schema.
    write(record, "not JSON");
    PluginCatalog catalog = discover_plugins(test_support::search_in({dir.path()}));
    REQUIRE(catalog.plugins.size() == 1);
    CHECK_FALSE(catalog.plugins[0].build_record);
    CHECK_THAT(catalog.plugins[0].build_record_note, Catch::Contains("not JSON"));
    const json plugin_record = plugin_json(catalog.plugins[0]);
    CHECK_FALSE(plugin_record.contains("build_record"));
    CHECK_THAT(plugin_record.at("build_record_note").get<std::string>(), Catch::Contains("not JSON"));
}

TEST_CASE("the results carry a plugin's build record, which passes the schema and reads back",
          "[build-record]") {
    test_support::TempFolder dir;
    fs::copy_file(test_support::fixture("fixture_good.so"), dir.path() / "fixture_good.so");
    const json record = {{"language", "C"},      {"compile_s", 0.75},
                         {"source_files", {"fixture_good.c"}}, {"source_lines", 40},
                         {"shared_files", {"fixture_common.c"}}, {"shared_lines", 120},
                         {"shared_compile_s", 0.5}};
    write(build_record_path(dir.path() / "fixture_good.so"), record.dump());
    const fs::path results = dir.path() / "r.json";
    const Outcome o = run_runner("--plugin-dir " + dir.path().string() +
                                 " --plugin fixture_good --sizes 5" + quick + "-o " + results.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const json document = read_json(results);
    CHECK(document.at("plugins").at(0).at("build_record") == record);
    CHECK_FALSE(results_schema_violation(document));
    const ResultsDocument typed = read_results_file(results);  // checked against the schema
    REQUIRE(typed.plugins.at(0).build_record);
    CHECK(build_record_json(*typed.plugins[0].build_record) == record);
    // A wrong type inside it breaks the results schema too, and files without one still pass.
    json broken = document;
    broken["plugins"][0]["build_record"]["source_lines"] = "40";
    CHECK(results_schema_violation(broken)->text() ==
          "/plugins/0/build_record/source_lines: expected an integer, got a string");
    json old = document;
    old["plugins"][0].erase("build_record");
    CHECK_FALSE(results_schema_violation(old));
    CHECK_FALSE(results_document(old, "old").plugins.at(0).build_record);
}
