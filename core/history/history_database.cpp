#include "history_database.hpp"

#include <sqlite3.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>

namespace gpubench {

namespace {

// Long enough for seven other writers to add a large results file each.
constexpr int busy_timeout_ms = 60000;

// One run per results file; one point per verified entry of it (docs/history.md).
constexpr const char *schema_sql = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  machine TEXT NOT NULL,
  gpus TEXT NOT NULL,
  build TEXT NOT NULL,
  commit_id TEXT NOT NULL,
  created TEXT NOT NULL,
  source TEXT NOT NULL,
  content_hash TEXT NOT NULL UNIQUE,
  added TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
CREATE TABLE points (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  plugin TEXT NOT NULL,
  size INTEGER NOT NULL,
  params TEXT NOT NULL,
  device INTEGER NOT NULL,
  median REAL NOT NULL,
  q1 REAL NOT NULL,
  q3 REAL NOT NULL,
  min REAL NOT NULL,
  max REAL NOT NULL,
  samples INTEGER NOT NULL,
  flags TEXT NOT NULL,
  wall_s REAL,
  start_s REAL);
CREATE INDEX points_by_run ON points(run_id);
)sql";

// Columns added to a table after schema 1's files were first written: NULL in rows stored
// before them. Readers of those files that do not know them are not affected.
// metrics: the entry's metrics as the results file has them (a JSON array), NULL where none.
constexpr struct {
    const char *table, *name, *type;
} added_columns[] = {{"points", "wall_s", "REAL"}, {"points", "start_s", "REAL"},
                     {"points", "metrics", "TEXT"}};

}  // namespace

HistoryDatabase::HistoryDatabase(const std::filesystem::path &path, Access access) : path_(path) {
    std::error_code ec;
    if (access == Access::read && !std::filesystem::exists(path, ec))
        throw std::runtime_error("no history database " + path.string());
    const int flags = access == Access::read ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        const std::string reason = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        throw std::runtime_error("cannot open history database " + path.string() + ": " + reason);
    }
    try {
        sqlite3_busy_timeout(db_, busy_timeout_ms);
        // Before anything is written: another application's database stays as it was.
        const bool fresh = check_identity(access);
        if (access == Access::read) return;
        // WAL: readers never block the writer; writers queue on the lock (BEGIN IMMEDIATE).
        use_wal();
        execute("PRAGMA foreign_keys=ON");
        if (fresh) create_schema();
        add_missing_columns();
    } catch (...) {
        sqlite3_close(db_);
        throw;
    }
}

HistoryDatabase::~HistoryDatabase() { sqlite3_close(db_); }

int64_t HistoryDatabase::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

void HistoryDatabase::fail(const std::string &what) const {
    throw std::runtime_error("history database " + path_.string() + ": " + what + ": " + sqlite3_errmsg(db_));
}

void HistoryDatabase::execute(const std::string &sql) {
    char *error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return;
    const std::string reason = error ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    throw std::runtime_error("history database " + path_.string() + ": " + reason + " (" +
                             sql.substr(0, sql.find_first_of("(\n", 1)) + ")");
}

void HistoryDatabase::use_wal() {
    // Switching to WAL (once, on a new file) takes an exclusive lock, for which SQLite does not
    // call the busy handler when others hold the file: retried here, under the same timeout.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
    const std::string sql = "PRAGMA journal_mode=WAL";
    for (int attempt = 1;; ++attempt) {
        const int status = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) & 0xff;
        if (status == SQLITE_OK) return;
        if ((status != SQLITE_BUSY && status != SQLITE_LOCKED) || std::chrono::steady_clock::now() > deadline)
            execute(sql);  // throws with SQLite's reason (or succeeds at last)
        std::this_thread::sleep_for(std::chrono::milliseconds(1 + attempt % 10));
    }
}

bool HistoryDatabase::check_identity(Access access) {
    int64_t application_id = 0, version = 0, objects = 0;
    try {
        // One statement, one snapshot: a schema another writer commits meanwhile is seen whole
        // or not at all (read apart, its tables could be counted without its application id).
        HistoryStatement identity(*this, "SELECT (SELECT application_id FROM pragma_application_id()), "
                                         "(SELECT user_version FROM pragma_user_version()), "
                                         "(SELECT count(*) FROM sqlite_master)");
        if (identity.step()) {
            application_id = identity.integer(0);
            version = identity.integer(1);
            objects = identity.integer(2);
        }
    } catch (const std::runtime_error &) {
        // "file is not a database", "database disk image is malformed"; else (locked...) as is.
        const int code = sqlite3_errcode(db_);
        if (code != SQLITE_NOTADB && code != SQLITE_CORRUPT) throw;
        throw std::runtime_error(path_.string() + " is not a gpubench history database (" +
                                 sqlite3_errmsg(db_) + ")");
    }
    const std::string name = path_.string();
    if (application_id == history_application_id) {
        if (version > history_schema_version)
            throw std::runtime_error(name + " was written by a newer gpubench (history schema " +
                                     std::to_string(version) + "; this one reads " +
                                     std::to_string(history_schema_version) + ")");
        return false;
    }
    if (application_id == 0 && objects == 0) {
        if (access == Access::read) throw std::runtime_error(name + " is empty: no run was added to it");
        return true;
    }
    throw std::runtime_error(name + " is not a gpubench history database (an SQLite database of " +
                             (application_id ? "application id " + std::to_string(application_id)
                                             : std::to_string(objects) + " other tables or indexes") +
                             ")");
}

void HistoryDatabase::create_schema() {
    HistoryTransaction transaction(*this);
    // Another writer may have created it since check_identity: only the first one does.
    {  // finalized before the schema is written
        HistoryStatement application_id(*this, "PRAGMA application_id");
        if (application_id.step() && application_id.integer(0) == history_application_id) return;
    }
    execute(schema_sql);
    execute("PRAGMA application_id=" + std::to_string(history_application_id));
    execute("PRAGMA user_version=" + std::to_string(history_schema_version));
    transaction.commit();
}

bool HistoryDatabase::has_column(const std::string &table, const std::string &column) const {
    HistoryStatement columns(*this, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2");
    return columns.bind(1, table).bind(2, column).step() && columns.integer(0) > 0;
}

void HistoryDatabase::add_missing_columns() {
    for (const auto &[table, name, type] : added_columns)
        if (!has_column(table, name)) {
            HistoryTransaction transaction(*this);
            // Another writer may have added it since: only the first one does.
            if (has_column(table, name)) continue;
            execute(std::string("ALTER TABLE ") + table + " ADD COLUMN " + name + " " + type);
            transaction.commit();
        }
}

HistoryStatement::HistoryStatement(const HistoryDatabase &db, const std::string &sql) : db_(db) {
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK)
        db.fail("preparing '" + sql.substr(0, sql.find(' ')) + "...'");
}

HistoryStatement::~HistoryStatement() { sqlite3_finalize(statement_); }

HistoryStatement &HistoryStatement::bound(int status) {
    if (status != SQLITE_OK) db_.fail("binding a value");
    return *this;
}

HistoryStatement &HistoryStatement::bind(int index, const std::string &text) {
    return bound(sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
}

HistoryStatement &HistoryStatement::bind(int index, int64_t value) {
    return bound(sqlite3_bind_int64(statement_, index, value));
}

HistoryStatement &HistoryStatement::bind(int index, double value) {
    return bound(sqlite3_bind_double(statement_, index, value));
}

HistoryStatement &HistoryStatement::bind(int index, const std::optional<double> &value) {
    return value ? bind(index, *value) : bind_null(index);
}

HistoryStatement &HistoryStatement::bind_null(int index) { return bound(sqlite3_bind_null(statement_, index)); }

bool HistoryStatement::step() {
    const int status = sqlite3_step(statement_);
    if (status == SQLITE_ROW) return true;
    if (status == SQLITE_DONE) return false;
    db_.fail("reading or writing");
}

void HistoryStatement::reset() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
}

std::string HistoryStatement::text(int column) const {
    const unsigned char *value = sqlite3_column_text(statement_, column);
    return value ? std::string(reinterpret_cast<const char *>(value),
                               static_cast<size_t>(sqlite3_column_bytes(statement_, column)))
                 : std::string();
}

int64_t HistoryStatement::integer(int column) const { return sqlite3_column_int64(statement_, column); }

bool HistoryStatement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

double HistoryStatement::real(int column) const { return sqlite3_column_double(statement_, column); }

HistoryTransaction::HistoryTransaction(HistoryDatabase &db) : db_(db) { db_.execute("BEGIN IMMEDIATE"); }

HistoryTransaction::~HistoryTransaction() {
    if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void HistoryTransaction::commit() {
    db_.execute("COMMIT");
    open_ = false;
}

}  // namespace gpubench
