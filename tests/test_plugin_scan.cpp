// Plugin files are scanned out of process: whatever a file does while it is loaded (crash,
// exit, hang, lie) makes it a refusal with the reason, the rest is found as before, and the
// scan is cached by file. Folders and files others can write are refused.
#include "plugin_catalog.hpp"
#include "plugin_scan.hpp"
#include "plugin_scan_cache.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

using namespace gpubench;
namespace fs = std::filesystem;
using test_support::TempFolder;

namespace {

std::string reason_for(const PluginCatalog &catalog, const std::string &file) {
    for (const Refusal &r : catalog.refused)
        if (r.file.filename() == file) return r.reason;
    for (const PluginInfo &p : catalog.plugins)
        if (p.file.filename() == file) return "accepted as " + p.name;
    return "not seen";
}

// What a catalog holds, by file name: each plugin's descriptor as the scanner reports it
// (every field), each refusal's reason.
nlohmann::json catalog_json(const PluginCatalog &catalog) {
    nlohmann::json plugins = nlohmann::json::object(), refused = nlohmann::json::object();
    for (const PluginInfo &p : catalog.plugins) plugins[p.file.filename().string()] = plugin_info_to_json(p);
    for (const Refusal &r : catalog.refused) refused[r.file.filename().string()] = r.reason;
    return {{"plugins", plugins}, {"refused", refused}};
}


}  // namespace

TEST_CASE("scan: every hostile file is refused with what it did, and the good plugins are found",
          "[scan]") {
    PluginSearch search = test_support::search_in({GPUBENCH_HOSTILE_DIR, GPUBENCH_FIXTURE_DIR});
    search.scan.timeout_s = 2;
    const auto began = std::chrono::steady_clock::now();
    const PluginCatalog catalog = discover_plugins(search);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    CHECK(took < 30);  // the hanging one costs its time-out, in parallel with the rest
    CHECK(reason_for(catalog, "fixture_duplicate.so") == "accepted as fixture_good");
    CHECK_THAT(reason_for(catalog, "hostile_constructor_exit.so"),
               Catch::Contains("exited with status 0 while loading the library"));
    CHECK_THAT(reason_for(catalog, "hostile_constructor_hang.so"),
               Catch::Contains("still loading the library after 2 s") && Catch::Contains("killed"));
    CHECK_THAT(reason_for(catalog, "hostile_constructor_abort.so"),
               Catch::Contains("crashed while loading the library: SIGABRT"));
    CHECK_THAT(reason_for(catalog, "hostile_forged_report.so"),
               Catch::Contains("report did not parse"));
    CHECK_THAT(reason_for(catalog, "hostile_huge_struct_size.so"),
               Catch::Contains("struct_size 4294967295 is above the limit"));
    CHECK_THAT(reason_for(catalog, "hostile_huge_size_count.so"),
               Catch::Contains("default_size_count 1000000000 is above the limit of 1024"));
    CHECK_THAT(reason_for(catalog, "hostile_unterminated.so"),
               Catch::Contains("'description' is not a NUL-terminated string"));
    CHECK_THAT(reason_for(catalog, "hostile_long_string.so"),
               Catch::Contains("'description' is not a NUL-terminated string of at most 4095 bytes"));
    CHECK_THAT(reason_for(catalog, "hostile_wild_pointer.so"),
               Catch::Contains("'name' points to unreadable memory"));
    CHECK_THAT(reason_for(catalog, "hostile_data_as_code.so"),
               Catch::Contains("function 'run' does not point to code"));
    CHECK_THAT(reason_for(catalog, "hostile_default_out_of_range.so"),
               Catch::Contains("default size 5000 is outside the plugin's range 1..1000"));
    // Cut short: the loader refuses it or crashes on it; either way it is a refusal.
    // (AddressSanitizer, in a sanitized build, reports the SIGBUS and exits with status 1.)
    CHECK_THAT(reason_for(catalog, "hostile_truncated.so"),
               Catch::StartsWith("cannot load") || Catch::StartsWith("crashed while loading") ||
                   Catch::StartsWith(test_support::sanitized_build
                                         ? "exited with status 1 while loading the library"
                                         : "crashed while loading"));
    CHECK_FALSE(catalog.plugins.empty());
}

TEST_CASE("scan: results are cached by file and used without starting a scanner", "[scan]") {
    TempFolder cache_dir, plugins;
    fs::copy_file(test_support::fixture("fixture_good.so"), plugins.path() / "fixture_good.so");
    fs::copy_file(test_support::fixture("fixture_no_entry.so"), plugins.path() / "fixture_no_entry.so");
    PluginSearch search = test_support::search_in({plugins.path()});
    search.scan.cache = cache_dir.path() / "plugin-scan.json";
    const PluginCatalog first = discover_plugins(search);
    REQUIRE(first.plugins.size() == 1);
    REQUIRE(first.refused.size() == 1);
    REQUIRE(fs::exists(*search.scan.cache));

    // No scanner can start now: what is found comes from the cache alone.
    search.scan.runner = "/nonexistent/runner";
    const PluginCatalog cached = discover_plugins(search);
    REQUIRE(cached.plugins.size() == 1);
    CHECK(cached.plugins[0].name == "fixture_good");
    CHECK(cached.plugins[0].default_sizes == first.plugins[0].default_sizes);
    REQUIRE(cached.refused.size() == 1);
    CHECK(cached.refused[0].reason == first.refused[0].reason);

    // A changed file is scanned again (and here cannot be): the cache is not trusted for it.
    fs::copy_file(test_support::fixture("fixture_v1_0.so"), plugins.path() / "fixture_good.so",
                  fs::copy_options::overwrite_existing);
    const PluginCatalog changed = discover_plugins(search);
    CHECK(changed.plugins.empty());
    CHECK_THAT(reason_for(changed, "fixture_good.so"), Catch::StartsWith("cannot scan"));
    // --rescan-plugins ignores the cache for unchanged files too.
    search.scan.rescan = true;
    CHECK_THAT(reason_for(discover_plugins(search), "fixture_no_entry.so"), Catch::StartsWith("cannot scan"));
}

TEST_CASE("scan: a damaged or foreign cache file is ignored, never trusted", "[scan]") {
    TempFolder cache_dir;
    const fs::path cache = cache_dir.path() / "plugin-scan.json";
    PluginSearch search = test_support::search_in({GPUBENCH_FIXTURE_DIR});
    const nlohmann::json scanned = catalog_json(discover_plugins(search));  // no cache at all
    REQUIRE(scanned.at("plugins").contains("fixture_bad_verify.so"));
    REQUIRE_FALSE(scanned.at("refused").empty());
    search.scan.cache = cache;

    // Another runner's cache claiming fixture_bad_verify.so, as it is on disk now, is another plugin.
    const fs::path claimed = test_support::fixture("fixture_bad_verify.so");
    const std::optional<FileIdentity> id = file_identity(claimed);
    REQUIRE(id);
    nlohmann::json impostor = scanned["plugins"]["fixture_bad_verify.so"];
    impostor["name"] = "impostor";
    const nlohmann::json foreign = {
        {"runner", "gpubench 0.0 elsewhere abi 1.0 format 1"},
        {"files", {{claimed.string(), {{"identity", {{"device", id->device}, {"inode", id->inode}, {"size", id->size},
                                                  {"modified_ns", id->modified_ns}, {"changed_ns", id->changed_ns}}},
                                    {"plugin", impostor}}}}}};
    for (const std::string &text : {std::string(), std::string("not json"), std::string("[1,2]"),
                                    std::string("{\"runner\": 5, \"files\": []}"),
                                    std::string("{\"files\": {\"x\": {\"identity\": 1}}}"), foreign.dump()}) {
        INFO("cache: " << text);
        std::ofstream(cache) << text;
        search.scan.runner = GPUBENCH_RUNNER;
        // Every plugin and refusal as a scan without the cache finds them, field by field.
        CHECK(catalog_json(discover_plugins(search)) == scanned);
        // The cache was rewritten with the real scan: read back with no scanner, the same plugins
        // (a file that could not be loaded is not cached: it is scanned again, here in vain).
        search.scan.runner = "/nonexistent/runner";
        CHECK(catalog_json(discover_plugins(search))["plugins"] == scanned["plugins"]);
    }
}

TEST_CASE("scan: folders and files writable by others are refused unless allowed", "[scan]") {
    TempFolder folder;
    fs::copy_file(test_support::fixture("fixture_good.so"), folder.path() / "fixture_good.so");
    PluginSearch search = test_support::search_in({folder.path()});
    REQUIRE(discover_plugins(search).plugins.size() == 1);

    chmod(folder.path().c_str(), 0777);
    PluginCatalog open_folder = discover_plugins(search);
    CHECK(open_folder.plugins.empty());
    REQUIRE(open_folder.refused.size() == 1);
    CHECK_THAT(open_folder.refused[0].reason,
               Catch::Contains("plugin folder writable by everyone (mode 0777)") &&
                   Catch::Contains("--allow-insecure-plugins"));
    search.allow_insecure = true;
    CHECK(discover_plugins(search).plugins.size() == 1);

    search.allow_insecure = false;
    chmod(folder.path().c_str(), 0700);
    chmod((folder.path() / "fixture_good.so").c_str(), 0664);
    PluginCatalog group_file = discover_plugins(search);
    CHECK(group_file.plugins.empty());
    CHECK_THAT(reason_for(group_file, "fixture_good.so"),
               Catch::Contains("plugin file writable by its group (mode 0664)"));

    // A link in a safe folder to a file in an open one counts as the open one.
    TempFolder open, safe;
    fs::copy_file(test_support::fixture("fixture_good.so"), open.path() / "fixture_good.so");
    chmod(open.path().c_str(), 0777);
    fs::create_symlink(open.path() / "fixture_good.so", safe.path() / "fixture_good.so");
    CHECK_THAT(reason_for(discover_plugins(test_support::search_in({safe.path()})), "fixture_good.so"),
               Catch::Contains("writable by everyone"));
}
