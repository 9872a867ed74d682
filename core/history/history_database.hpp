// The SQLite file behind the history (history_store.hpp): opening it, recognising it as a
// gpubench history (or creating one), and running statements. Internal to history_*.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace gpubench {

// The schema's version, kept in the file (PRAGMA user_version); bumped on any change a reader
// must know about. A file written by a newer schema is refused.
inline constexpr int history_schema_version = 1;
// What marks an SQLite file as a gpubench history (PRAGMA application_id): "gpbh".
inline constexpr int32_t history_application_id = 0x67706268;

class HistoryDatabase {
public:
    enum class Access { read, write };
    // Opens `path`; for writing creates it (and its tables) when missing or empty. Throws
    // std::runtime_error with one line naming the file when it cannot be opened, is not a
    // gpubench history (another SQLite database, not a database at all) or is too new. Writers
    // use WAL and wait for each other (busy timeout), so concurrent processes lose nothing.
    HistoryDatabase(const std::filesystem::path &path, Access access);
    ~HistoryDatabase();
    HistoryDatabase(const HistoryDatabase &) = delete;
    HistoryDatabase &operator=(const HistoryDatabase &) = delete;

    void execute(const std::string &sql);  // throws, naming the file and SQLite's reason
    [[noreturn]] void fail(const std::string &what) const;
    int64_t last_insert_id() const;
    // Whether `table` has `column`: a file written before the column was added has not.
    bool has_column(const std::string &table, const std::string &column) const;
    sqlite3 *handle() const { return db_; }

private:
    bool check_identity(Access access);  // true: a new, empty file to create the schema in
    void create_schema();
    void add_missing_columns();  // on opening for writing: those added since the file was made
    void use_wal();
    std::filesystem::path path_;
    sqlite3 *db_ = nullptr;
};

// A prepared statement; bind parameters by position (1-based), step through its rows.
class HistoryStatement {
public:
    HistoryStatement(const HistoryDatabase &db, const std::string &sql);
    ~HistoryStatement();
    HistoryStatement(const HistoryStatement &) = delete;
    HistoryStatement &operator=(const HistoryStatement &) = delete;

    HistoryStatement &bind(int index, const std::string &text);
    HistoryStatement &bind(int index, int64_t value);
    HistoryStatement &bind(int index, double value);
    HistoryStatement &bind(int index, const std::optional<double> &value);  // NULL when absent
    HistoryStatement &bind_null(int index);
    bool step();   // true while there is a row to read; throws on an error
    void reset();  // to run it again, with new values bound
    std::string text(int column) const;
    int64_t integer(int column) const;
    double real(int column) const;
    bool is_null(int column) const;

private:
    HistoryStatement &bound(int status);  // throws unless SQLITE_OK
    const HistoryDatabase &db_;
    sqlite3_stmt *statement_ = nullptr;
};

// Holds a write transaction (BEGIN IMMEDIATE: the write lock is taken at once, waiting for
// other writers under the busy timeout); rolled back unless committed.
class HistoryTransaction {
public:
    explicit HistoryTransaction(HistoryDatabase &db);
    ~HistoryTransaction();
    HistoryTransaction(const HistoryTransaction &) = delete;
    HistoryTransaction &operator=(const HistoryTransaction &) = delete;
    void commit();

private:
    HistoryDatabase &db_;
    bool open_ = true;
};

}  // namespace gpubench
