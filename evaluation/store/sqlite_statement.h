// The SQLite calls of the competition store (competition_store.h) behind two small classes: a
// prepared statement (bind, step, read columns) and a transaction that rolls back unless
// committed. Every SQLite failure becomes one of the project's errors, by its kind (fail_sqlite).
#pragma once

#include <cstdint>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace graphcost {

// SQLite's failures by kind: a file that is not a database is bad input (InputError), a full or
// failing disk the machine's (IoError), anything else a bug here (InternalError). `db` may be
// null: the message is then `code`'s.
[[noreturn]] void fail_sqlite(sqlite3* db, int code, const std::string& path, const std::string& doing);

// One prepared statement. `path` (the database's, for messages) is referenced: it must outlive
// the statement.
class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, const std::string& path, const char* sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters count from 1; text and blobs are copied.
  SqliteStatement& bind(int index, int64_t value);
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, const std::string& text);
  SqliteStatement& bind_null(int index);
  SqliteStatement& bind_blob(int index, const std::string& bytes);
  // True while there is a row to read.
  bool step();
  void run();  // steps to the end
  // The current row's columns, from 0.
  bool is_null(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::string blob(int column) const;

 private:
  SqliteStatement& check(int code);
  sqlite3* db_;
  const std::string& path_;
  std::string sql_;
  sqlite3_stmt* statement_ = nullptr;
};

// BEGIN (IMMEDIATE: takes the write lock at once, so a read-then-write cannot race) ... COMMIT;
// rolled back when left without commit().
class SqliteTransaction {
 public:
  SqliteTransaction(sqlite3* db, const std::string& path, bool immediate);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  void commit();

 private:
  sqlite3* db_;
  const std::string& path_;
  bool done_ = false;
};

}  // namespace graphcost
