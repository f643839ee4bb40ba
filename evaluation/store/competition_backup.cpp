// CompetitionStore::backup_to: a consistent copy of a competition database while the server
// runs (SQLite's online backup API), checked and renamed into place (competition_store.h).
#include "store/competition_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/io_error.h"
#include "store/sqlite_statement.h"

namespace graphcost {

CompetitionStore::BackupSummary CompetitionStore::backup_to(const std::string& out) const {
  std::error_code error;
  if (std::filesystem::exists(out, error)) throw InputError(out, "--out", "a new file (a backup never replaces one)", "the file exists");
  check_output_path(out, {path_});
  const std::string partial = out + ".partial";
  std::filesystem::remove(partial, error);
  sqlite3* copy = nullptr;
  int code = sqlite3_open_v2(partial.c_str(), &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  auto close_and_remove = [&] {
    sqlite3_close_v2(copy);
    std::filesystem::remove(partial, error);
  };
  if (code != SQLITE_OK) {
    const std::string message = sqlite3_errstr(code);
    close_and_remove();
    throw IoError(partial, "create the backup", 0, message);
  }
  sqlite3_backup* backup = sqlite3_backup_init(copy, "main", db_, "main");
  if (backup == nullptr) {
    const std::string message = sqlite3_errmsg(copy);
    close_and_remove();
    throw IoError(partial, "start the backup", 0, message);
  }
  code = sqlite3_backup_step(backup, -1);  // every page in one step: one snapshot
  sqlite3_backup_finish(backup);
  if (code != SQLITE_DONE) {
    const std::string message = sqlite3_errstr(code);
    close_and_remove();
    throw IoError(partial, "copy the database", 0, message);
  }
  std::string check;
  char* failure = nullptr;
  code = sqlite3_exec(copy, "PRAGMA journal_mode = DELETE", nullptr, nullptr, &failure);
  if (code == SQLITE_OK) {
    code = sqlite3_exec(
        copy, "PRAGMA quick_check",
        [](void* result, int, char** values, char**) {
          *static_cast<std::string*>(result) += values[0] != nullptr ? values[0] : "";
          return 0;
        },
        &check, &failure);
  }
  const std::string message = failure != nullptr ? failure : "";
  sqlite3_free(failure);
  if (code != SQLITE_OK || check != "ok") {
    close_and_remove();
    throw IoError(partial, "check the backup", 0, code != SQLITE_OK ? message : "quick_check: " + check);
  }
  BackupSummary summary;
  try {
    SqliteStatement held(copy, partial, "SELECT (SELECT count(*) FROM teams), (SELECT count(*) FROM submissions)");
    held.step();
    summary.teams = held.integer(0), summary.submissions = held.integer(1);
  } catch (...) {
    close_and_remove();
    throw;
  }
  sqlite3_close_v2(copy);
  std::filesystem::rename(partial, out, error);
  if (error) throw IoError(out, "rename the finished backup onto", error.value());
  return summary;
}

}  // namespace graphcost
