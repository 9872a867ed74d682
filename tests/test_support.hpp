// Shared by the test files: paths the build passes in, and skipping with a reason.
#pragma once

#include "plugin_library.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace test_support {

inline std::filesystem::path fixture(const std::string &file) {
    return std::filesystem::path(GPUBENCH_FIXTURE_DIR) / file;
}

// A fixture plugin, loaded; the test fails (with the reason) when it is refused.
inline gpubench::Plugin load_fixture(const std::string &file) {
    auto loaded = gpubench::load_plugin(fixture(file));
    if (auto *r = std::get_if<gpubench::Refusal>(&loaded)) FAIL(file << " refused: " << r->reason);
    return std::move(std::get<gpubench::Plugin>(loaded));
}

// ctest marks a test that exits with this code as skipped (SKIP_RETURN_CODE), showing the
// reason printed here. Catch2 v2 has no SKIP of its own; each ctest test runs one test case.
inline constexpr int skip_exit_code = 77;

[[noreturn]] inline void skip_test(const std::string &reason) {
    std::printf("SKIPPED: %s\n", reason.c_str());
    std::fflush(stdout);
    std::_Exit(skip_exit_code);
}

}  // namespace test_support
