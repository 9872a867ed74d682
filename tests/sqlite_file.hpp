// Changing an SQLite file directly, not through the runner: a history as an older gpubench or
// another application left it.
#pragma once

#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <filesystem>
#include <string>

// Runs `statement` on the database at `db` (created when missing).
inline void sql(const std::filesystem::path &db, const std::string &statement) {
    sqlite3 *handle = nullptr;
    REQUIRE(sqlite3_open(db.c_str(), &handle) == SQLITE_OK);
    REQUIRE(sqlite3_exec(handle, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(handle);
}
