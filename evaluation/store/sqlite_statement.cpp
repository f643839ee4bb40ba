#include "store/sqlite_statement.h"

#include <sqlite3.h>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/io_error.h"

namespace graphcost {

void fail_sqlite(sqlite3* db, int code, const std::string& path, const std::string& doing) {
  const std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  switch (code & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      throw InputError(path, "", "a graphcost competition database (SQLite)", message + " while " + doing);
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw IoError(path, doing, 0, message);
    default:
      throw InternalError(path + ": SQLite: " + message + " while " + doing);
  }
}

SqliteStatement::SqliteStatement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path), sql_(sql) {
  const int code = sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr);
  if (code != SQLITE_OK) fail_sqlite(db, code, path, "preparing a query");
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

SqliteStatement& SqliteStatement::bind(int index, int64_t value) { return check(sqlite3_bind_int64(statement_, index, value)); }

SqliteStatement& SqliteStatement::bind(int index, double value) { return check(sqlite3_bind_double(statement_, index, value)); }

SqliteStatement& SqliteStatement::bind(int index, const std::string& text) {
  return check(sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
}

SqliteStatement& SqliteStatement::bind_null(int index) { return check(sqlite3_bind_null(statement_, index)); }

SqliteStatement& SqliteStatement::bind_blob(int index, const std::string& bytes) {
  return check(sqlite3_bind_blob64(statement_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT));
}

bool SqliteStatement::step() {
  const int code = sqlite3_step(statement_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  fail_sqlite(db_, code, path_, std::string("running '") + sql_.substr(0, 40) + "...'");
}

void SqliteStatement::run() {
  while (step()) {
  }
}

bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

int64_t SqliteStatement::integer(int column) const { return sqlite3_column_int64(statement_, column); }

double SqliteStatement::real(int column) const { return sqlite3_column_double(statement_, column); }

std::string SqliteStatement::text(int column) const {
  const unsigned char* text = sqlite3_column_text(statement_, column);
  return text == nullptr ? std::string()
                         : std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(statement_, column)));
}

std::string SqliteStatement::blob(int column) const {
  const void* bytes = sqlite3_column_blob(statement_, column);
  return bytes == nullptr ? std::string()
                          : std::string(static_cast<const char*>(bytes), static_cast<size_t>(sqlite3_column_bytes(statement_, column)));
}

SqliteStatement& SqliteStatement::check(int code) {
  if (code != SQLITE_OK) fail_sqlite(db_, code, path_, "binding a value");
  return *this;
}

SqliteTransaction::SqliteTransaction(sqlite3* db, const std::string& path, bool immediate) : db_(db), path_(path) {
  SqliteStatement(db, path, immediate ? "BEGIN IMMEDIATE" : "BEGIN").run();
}

SqliteTransaction::~SqliteTransaction() {
  if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
  SqliteStatement(db_, path_, "COMMIT").run();
  done_ = true;
}

}  // namespace graphcost
