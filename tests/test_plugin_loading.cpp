#include "plugin_catalog.hpp"
#include "plugin_library.hpp"
#include "test_support.hpp"
#include "text_format.hpp"

#include <catch2/catch.hpp>

using namespace gpubench;
using test_support::fixture;

namespace {

std::string refusal_reason(const std::string &file) {
    auto loaded = load_plugin(fixture(file));
    REQUIRE(std::holds_alternative<Refusal>(loaded));
    return std::get<Refusal>(loaded).reason;
}

}  // namespace

TEST_CASE("a valid plain-C plugin loads and describes itself", "[loader]") {
    auto loaded = load_plugin(fixture("fixture_good.so"));
    REQUIRE(std::holds_alternative<Plugin>(loaded));
    const Plugin &plugin = std::get<Plugin>(loaded);
    CHECK(plugin.name() == "fixture_good");
    CHECK(std::string(plugin.info().device_kind_name()) == "cpu");
    CHECK(plugin.api().abi_major == GPUBENCH_ABI_MAJOR);
}

TEST_CASE("files that are not valid plugins are refused with the reason", "[loader]") {
    CHECK_THAT(refusal_reason("fixture_not_a_library.so"), Catch::StartsWith("cannot load"));
    CHECK_THAT(refusal_reason("fixture_no_entry.so"), Catch::Contains("no entry symbol"));
    CHECK_THAT(refusal_reason("fixture_null_entry.so"), Catch::Contains("returned NULL"));
    CHECK_THAT(refusal_reason("fixture_wrong_major.so"),
               Catch::Contains("incompatible") && Catch::Contains("major versions differ"));
    CHECK_THAT(refusal_reason("fixture_small_struct.so"), Catch::Contains("descriptor too small"));
    CHECK_THAT(refusal_reason("does_not_exist.so"), Catch::StartsWith("cannot load"));
}

TEST_CASE("discovery keeps the first plugin of a name and lists every refusal", "[loader]") {
    PluginCatalog catalog = discover_plugins(test_support::search_in({GPUBENCH_FIXTURE_DIR}));
    std::vector<std::string> names;
    for (const PluginInfo &p : catalog.plugins) names.push_back(p.name);
    CHECK(std::count(names.begin(), names.end(), "fixture_good") == 1);
    auto refused = [&](const std::string &file) {
        for (const Refusal &r : catalog.refused)
            if (r.file.filename() == file) return r.reason;
        return std::string("not refused");
    };
    // fixture_duplicate.so sorts before fixture_good.so, so it is the one kept.
    CHECK_THAT(refused("fixture_good.so"), Catch::Contains("duplicate plugin name 'fixture_good'"));
    CHECK_THAT(refused("fixture_no_entry.so"), Catch::Contains("no entry symbol"));
    CHECK_THAT(refused("fixture_wrong_major.so"), Catch::Contains("incompatible"));
    CHECK_THAT(refused("fixture_not_a_library.so"), Catch::StartsWith("cannot load"));
}

TEST_CASE("a missing directory is reported, not fatal", "[loader]") {
    PluginCatalog catalog = discover_plugins(test_support::search_in({"/nonexistent/gpubench/plugins"}));
    CHECK(catalog.plugins.empty());
    REQUIRE(catalog.refused.size() == 1);
    CHECK(catalog.refused[0].reason == "plugin directory does not exist");
}

TEST_CASE("selection by names, comma lists and globs", "[loader]") {
    PluginCatalog catalog = discover_plugins(test_support::search_in({GPUBENCH_FIXTURE_DIR}));
    auto names = [&](std::vector<std::string> patterns) {
        std::vector<std::string> out;
        for (const PluginInfo *p : select_plugins(catalog, patterns)) out.push_back(p->name);
        return out;
    };
    CHECK(names({"fixture_good"}) == std::vector<std::string>{"fixture_good"});
    CHECK(names({"fixture_bad*", "fixture_good"}).size() == 2);
    CHECK(names({"fixture_*", "fixture_good"}).size() == catalog.plugins.size());  // each once
    CHECK_THROWS_WITH(select_plugins(catalog, {"nothing_*"}), Catch::Contains("no plugin matches 'nothing_*'"));
}

TEST_CASE("search path: explicit dirs, then the environment, then beside the runner", "[loader]") {
    PluginSearchPath path = plugin_search_path("/opt/gb/bin", {"/a"}, "/b:/c");
    REQUIRE(path.dirs.size() == 4);
    CHECK(path.dirs[0] == "/a");
    CHECK(path.dirs[1] == "/b");
    CHECK(path.dirs[2] == "/c");
    CHECK(path.dirs[3] == "/opt/gb/lib/gpubench/plugins");
    CHECK(path.warnings.empty());
    CHECK(plugin_search_path("/opt/gb/bin", {}, nullptr).dirs.size() == 1);
    CHECK(split_list(" a, b ,,c ") == std::vector<std::string>{"a", "b", "c"});
    CHECK(split_list(" a, b ,,c ", ',', true) == std::vector<std::string>{"a", "b", "", "c"});
}

TEST_CASE("search path: relative and empty entries of GPUBENCH_PLUGIN_PATH are ignored with a warning",
          "[loader]") {
    PluginSearchPath path = plugin_search_path("/opt/gb/bin", {}, ".:lib:/abs::");
    REQUIRE(path.dirs.size() == 2);  // /abs and beside the runner: never the current folder
    CHECK(path.dirs[0] == "/abs");
    REQUIRE(path.warnings.size() == 4);
    CHECK_THAT(path.warnings[0], Catch::Contains("entry '.' is relative") && Catch::Contains("ignored"));
    CHECK_THAT(path.warnings[1], Catch::Contains("entry 'lib' is relative"));
    CHECK_THAT(path.warnings[2], Catch::Contains("entry '' is empty"));
    // A path that is not UTF-8 is named in the warning, escaped, not thrown.
    PluginSearchPath odd = plugin_search_path("/opt/gb/bin", {}, "rel\xff");
    REQUIRE(odd.warnings.size() == 1);
    CHECK_THAT(odd.warnings[0], Catch::Contains("rel\\xFF"));
}

TEST_CASE("start-up scans only the plugin files named like a --plugin pattern", "[loading]") {
    const auto search = test_support::search_in({GPUBENCH_FIXTURE_DIR});
    PluginCatalog all = discover_plugins(search);
    CHECK_FALSE(all.refused.empty());  // the broken fixtures, scanned to be listed
    PluginCatalog some = discover_plugins(search, {"fixture_good"});
    REQUIRE(some.plugins.size() == 1);
    CHECK(some.plugins[0].name == "fixture_good");
    CHECK(some.refused.empty());  // nothing else was even opened
    CHECK(some.not_scanned.size() + 1 == all.plugins.size() + all.refused.size());
    CHECK(select_plugins(some, {"fixture_good"}).size() == 1);
    // A pattern no file name matches scans the rest before it gives up: plugins are found by
    // their descriptor's name, whatever their file is called.
    CHECK_THROWS_WITH(select_plugins(some, {"no_such_plugin"}), Catch::Contains("no plugin matches"));
    CHECK(some.not_scanned.empty());
    CHECK(some.plugins.size() == all.plugins.size());
}
