// The order in which --devices' lanes take entries: plugins whole, the costliest first (or, under
// a budget, in sweep order), a free lane joining the plugin with the most left only when that
// saves more than its start, and entries put back taken last.
#include "lane_queue.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace gpubench;

namespace {

PluginInfo plugin_named(const std::string &name, gpubench_device_kind kind = GPUBENCH_DEVICE_CUDA) {
    PluginInfo plugin;
    plugin.name = name;
    plugin.device_kind = kind;
    return plugin;
}

SweepEntries sizes_of(const PluginInfo &plugin, uint64_t count) {
    SweepEntries entries;
    for (uint64_t size = 1; size <= count; ++size) entries.push_back({&plugin, size, ""});
    return entries;
}

// short's 2 sizes, then long's 3.
SweepEntries short_then_long(const PluginInfo &short_one, const PluginInfo &long_one) {
    SweepEntries entries = sizes_of(short_one, 2);
    for (const SweepEntry &e : sizes_of(long_one, 3)) entries.push_back(e);
    return entries;
}

}  // namespace

TEST_CASE("lanes take plugins whole, the costliest first", "[devices]") {
    const PluginInfo short_one = plugin_named("short"), long_one = plugin_named("long");
    const SweepEntries entries = short_then_long(short_one, long_one);
    MeasureOptions options;
    options.max_time_s = 0.5;
    LaneQueue queue(entries, options, 2);
    // Lane 0 takes the longer plugin (3 entries), lane 1 the other; each keeps to its own.
    CHECK(queue.next(0)->plugin == &long_one);
    CHECK(queue.next(1)->plugin == &short_one);
    CHECK(queue.next(0)->size == 2);
    CHECK(queue.next(1)->size == 2);
    CHECK(queue.next(0)->size == 3);
    // Lane 1 is free: long has no entry left to share.
    CHECK_FALSE(queue.next(1));
    CHECK_FALSE(queue.next(0));
}

TEST_CASE("a free lane joins the plugin with the most left when that saves more than its start", "[devices]") {
    MeasureOptions options;
    options.max_time_s = 1;  // an entry: about 1.05 s
    const PluginInfo many = plugin_named("many"), few = plugin_named("few");
    SweepEntries entries = sizes_of(many, 12);
    for (const SweepEntry &e : sizes_of(few, 1)) entries.push_back(e);
    LaneQueue queue(entries, options, 2);
    CHECK(queue.next(0)->plugin == &many);
    CHECK(queue.next(1)->plugin == &few);
    // Lane 1 is done with "few": 11 entries of "many" are left, half of them (5.8 s) saved
    // against a CUDA plugin's start (0.55 s): it joins, taking the next size.
    const std::optional<SweepEntry> joined = queue.next(1);
    REQUIRE(joined);
    CHECK(joined->plugin == &many);
    CHECK(joined->size == 2);
    std::map<uint64_t, int> taken_by;
    taken_by[1] = 0, taken_by[2] = 1;
    for (bool any = true; any;) {
        any = false;
        for (size_t lane : {0, 1})
            if (const auto e = queue.next(lane)) taken_by[e->size] = int(lane), any = true;
    }
    CHECK(taken_by.size() == 12);  // every size once
}

TEST_CASE("a lane does not join a plugin whose start costs more than it would save", "[devices]") {
    MeasureOptions options;
    options.max_time_s = 0.5;
    PluginInfo python = plugin_named("python_backend");
    python.build_record = BuildRecord{};
    python.build_record->language = "Python";
    python.build_record->imports = {"numba"};  // a start of 3.55 s
    const PluginInfo other = plugin_named("other");
    SweepEntries entries = sizes_of(python, 4);
    for (const SweepEntry &e : sizes_of(other, 1)) entries.push_back(e);
    LaneQueue queue(entries, options, 2);
    CHECK(queue.next(0)->plugin == &python);
    CHECK(queue.next(1)->plugin == &other);
    CHECK_FALSE(queue.next(1));  // 3 entries left: 0.8 s saved, against 3.55 s
    for (uint64_t size = 2; size <= 4; ++size) CHECK(queue.next(0)->size == size);
    CHECK_FALSE(queue.next(0));
}

TEST_CASE("eight lanes: each its own plugin, the costliest first, then every entry once", "[devices]") {
    MeasureOptions options;
    options.max_time_s = 1;
    std::vector<PluginInfo> plugins;  // p0 to p9, p of p + 1 entries
    for (int p = 0; p < 10; ++p) plugins.push_back(plugin_named("p" + std::to_string(p)));
    SweepEntries entries;
    for (size_t p = 0; p < plugins.size(); ++p)
        for (const SweepEntry &e : sizes_of(plugins[p], p + 1)) entries.push_back(e);
    REQUIRE(entries.size() == 55);
    LaneQueue queue(entries, options, 8);
    std::map<std::pair<const PluginInfo *, uint64_t>, int> handed;  // how often each entry
    for (size_t lane = 0; lane < 8; ++lane) {
        const std::optional<SweepEntry> first = queue.next(lane);
        REQUIRE(first);
        CHECK(first->plugin == &plugins[9 - lane]);  // p9 (10 entries) to p2
        ++handed[{first->plugin, first->size}];
    }
    std::set<size_t> busy{0, 1, 2, 3, 4, 5, 6, 7};
    while (!busy.empty())
        for (size_t lane : std::set<size_t>(busy)) {
            if (const std::optional<SweepEntry> e = queue.next(lane)) ++handed[{e->plugin, e->size}];
            else busy.erase(lane);  // a lane that is given nothing stops, as run_lanes' does
        }
    CHECK(handed.size() == 55);
    for (const auto &[entry, times] : handed) CHECK(times == 1);
}

TEST_CASE("under a budget, lanes take plugins in sweep order, and entries put back last, a plugin's together, late",
          "[devices]") {
    const PluginInfo short_one = plugin_named("short"), long_one = plugin_named("long");
    const SweepEntries entries = short_then_long(short_one, long_one);
    MeasureOptions options;
    options.max_time_s = 0.5;
    LaneQueue queue(entries, options, 2, false);
    const std::optional<SweepEntry> first = queue.next(0);
    CHECK(first->plugin == &short_one);  // first in sweep order, though shorter
    CHECK_FALSE(first->late);
    const std::optional<SweepEntry> other = queue.next(1);
    CHECK(other->plugin == &long_one);
    queue.put_back(*first);  // skipped for the schedule
    const std::optional<SweepEntry> second = queue.next(0);
    queue.put_back(*other);
    queue.put_back(*second);
    // Lane 0 is done with its plugin and nothing is left whole: it takes what was put back of
    // the first one's plugin, both of short's, then nothing (long's is lane 1's to join).
    for (const uint64_t size : {1, 2}) {
        const std::optional<SweepEntry> late = queue.next(0);
        REQUIRE(late);
        CHECK((late->plugin == &short_one && late->size == size && late->late));
    }
    CHECK(queue.next(1)->size == 2);
    CHECK(queue.next(1)->size == 3);
    CHECK((queue.next(1)->plugin == &long_one && queue.next(0) == std::nullopt));
    CHECK_FALSE(queue.next(1));
}
