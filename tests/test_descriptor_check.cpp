// The descriptor checks on their own, over descriptors built in memory and an address space
// that knows exactly which bytes may be read and which are code.
#include "descriptor_check.hpp"
#include "fake_address_space.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <variant>
#include <vector>

using namespace gpubench;
using namespace fake_address_space;

namespace {

const uint64_t sizes[] = {10, 100};

// A correct descriptor whose strings and sizes the address space knows.
struct Fixture {
    gpubench_plugin d{};
    FakeAddressSpace memory;
    std::vector<std::string> texts{"good_one", "good", "one", "a test descriptor", "n", "1.0", "info"};

    Fixture() {
        d.struct_size = sizeof d;
        d.abi_major = GPUBENCH_ABI_MAJOR;
        d.abi_minor = GPUBENCH_ABI_MINOR;
        d.name = texts[0].c_str();
        d.workload = texts[1].c_str();
        d.backend = texts[2].c_str();
        d.description = texts[3].c_str();
        d.size_meaning = texts[4].c_str();
        d.version = texts[5].c_str();
        d.build_info = texts[6].c_str();
        d.min_size = 1;
        d.max_size = 1000;
        d.default_sizes = sizes;
        d.default_size_count = 2;
        d.work = any_work;
        d.create = any_create;
        d.run = any_phase;
        d.verify = any_verify;
        d.destroy = any_destroy;
        memory.add(&d, sizeof d);
        for (const std::string &t : texts) memory.add(t.c_str(), t.size() + 1);
        memory.add(sizes, sizeof sizes);
    }
    std::string problem() {
        auto read = read_descriptor(&d, memory);
        return std::holds_alternative<std::string>(read) ? std::get<std::string>(read) : "";
    }
};

}  // namespace

TEST_CASE("descriptor check: a correct descriptor is copied whole", "[descriptor]") {
    Fixture f;
    auto read = read_descriptor(&f.d, f.memory);
    REQUIRE(std::holds_alternative<PluginInfo>(read));
    const PluginInfo &info = std::get<PluginInfo>(read);
    CHECK(info.name == "good_one");
    CHECK(info.default_sizes == std::vector<uint64_t>{10, 100});
    CHECK(info.build_info == "info");
    CHECK_FALSE(info.param_names.has_value());
}

TEST_CASE("descriptor check: each malformed field is named", "[descriptor]") {
    Fixture f;
    SECTION("null or unreadable descriptor") {
        CHECK_THAT(std::get<std::string>(read_descriptor(nullptr, f.memory)), Catch::Contains("NULL"));
        int elsewhere = 0;
        CHECK_THAT(std::get<std::string>(read_descriptor(&elsewhere, f.memory)),
                   Catch::Contains("unreadable memory"));
    }
    SECTION("struct_size beyond the limit") {
        f.d.struct_size = 0xFFFFFFFFu;
        CHECK_THAT(f.problem(), Catch::Contains("struct_size 4294967295 is above the limit"));
        f.d.struct_size = 60000;  // a later minor version's: only the fields known are read
        CHECK(f.problem().empty());
    }
    SECTION("counts and ranges") {
        f.d.default_size_count = 1000000000u;
        CHECK_THAT(f.problem(), Catch::Contains("above the limit of 1024"));
        f.d.default_size_count = 3;  // one more than the array holds
        CHECK_THAT(f.problem(), Catch::Contains("not all in readable memory"));
        f.d.default_size_count = 2;
        f.d.max_size = 50;
        CHECK_THAT(f.problem(), Catch::Contains("default size 100 is outside"));
        f.d.min_size = 0;
        CHECK_THAT(f.problem(), Catch::Contains("invalid size range 0..50"));
    }
    SECTION("strings without a terminating NUL, too long, missing or unreadable") {
        char unterminated[8] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
        f.memory.add(unterminated, sizeof unterminated);
        f.d.description = unterminated;
        CHECK_THAT(f.problem(), Catch::Contains("'description' is not a NUL-terminated string"));
        std::string long_text(5000, 'x');
        f.memory.add(long_text.c_str(), long_text.size() + 1);
        f.d.description = long_text.c_str();
        CHECK_THAT(f.problem(), Catch::Contains("at most 4095 bytes"));
        f.d.description = nullptr;
        CHECK_THAT(f.problem(), Catch::Contains("'description' is NULL"));
        f.d.description = reinterpret_cast<const char *>(16);
        CHECK_THAT(f.problem(), Catch::Contains("'description' points to unreadable memory"));
    }
    SECTION("function pointers: required ones present, every one pointing to code") {
        f.d.run = nullptr;
        CHECK_THAT(f.problem(), Catch::Contains("lacks the required function 'run'"));
        f.d.run = reinterpret_cast<gpubench_phase_fn>(reinterpret_cast<uintptr_t>(sizes));
        CHECK_THAT(f.problem(), Catch::Contains("function 'run' does not point to code"));
        f.d.run = any_phase;
        f.d.upload = reinterpret_cast<gpubench_phase_fn>(reinterpret_cast<uintptr_t>(sizes));
        CHECK_THAT(f.problem(), Catch::Contains("function 'upload' does not point to code"));
    }
    SECTION("names and kinds") {
        f.texts[0] = "bad name";
        f.d.name = f.texts[0].c_str();
        f.memory.add(f.d.name, f.texts[0].size() + 1);
        CHECK_THAT(f.problem(), Catch::Contains("characters other than letters"));
        f.texts[0] = "ok";
        f.d.name = f.texts[0].c_str();
        f.memory.add(f.d.name, 3);
        f.d.device_kind = 7;
        CHECK_THAT(f.problem(), Catch::Contains("unknown device kind 7"));
    }
    SECTION("max_devices (v1.5): 0 is one device, above 1024 refused, unread before 1.5") {
        const auto max_devices = [&] {
            return std::get<PluginInfo>(read_descriptor(&f.d, f.memory)).max_devices;
        };
        CHECK(max_devices() == 1);  // 0: a single-device plugin
        f.d.max_devices = 8;
        CHECK(max_devices() == 8);
        f.d.max_devices = 5000;
        CHECK_THAT(f.problem(), Catch::Contains("max_devices 5000 is outside 1..1024"));
        f.d.struct_size = offsetof(gpubench_plugin, max_devices);  // a 1.4 plugin's
        CHECK(max_devices() == 1);
    }
    SECTION("another ABI major is refused before anything else is read") {
        f.d.abi_major = GPUBENCH_ABI_MAJOR + 1;
        f.d.struct_size = 0xFFFFFFFFu;
        CHECK_THAT(f.problem(), Catch::Contains("major versions differ"));
    }
}

TEST_CASE("descriptor check: text that is not UTF-8, or has control characters, is escaped",
          "[descriptor]") {
    Fixture f;
    const char odd[] = "caf\xC3\xA9 \xFF\x1B[2J\n";
    f.memory.add(odd, sizeof odd);
    f.d.description = odd;
    auto read = read_descriptor(&f.d, f.memory);
    REQUIRE(std::holds_alternative<PluginInfo>(read));
    CHECK(std::get<PluginInfo>(read).description == "caf\xC3\xA9 \\xFF\\x1B[2J\\x0A");
}

TEST_CASE("descriptor check: this process's own map knows its code and data", "[descriptor]") {
    ProcessAddressSpace memory;
    static const char text[] = "text";
    CHECK(memory.readable_bytes(text) >= sizeof text);
    CHECK(memory.executable(reinterpret_cast<const void *>(&any_work)));
    CHECK_FALSE(memory.executable(text));
    CHECK(memory.readable_bytes(reinterpret_cast<const void *>(16)) == 0);
}
