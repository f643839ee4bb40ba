// The competition database's schema as migrations (the tables are described in
// competition_store.h): CompetitionStore::open brings every file to kSchemaVersion, one
// migration at a time, in one transaction, and refuses another program's database and a newer
// graphcost's.
#include "store/competition_store.h"

#include <string>

#include "common/input_error.h"
#include "store/sqlite_statement.h"

namespace graphcost {
namespace {

// PRAGMA application_id of every graphcost competition database ("GCst").
constexpr int64_t kApplicationId = 0x47437374;

// Version n's statements take the schema from version n - 1 to n.
const char* const kMigrations[] = {
    // 1: the first schema.
    "CREATE TABLE competition ("
    "  id INTEGER PRIMARY KEY CHECK (id = 1), title TEXT NOT NULL, deadline TEXT NOT NULL,"
    "  daily_cap INTEGER NOT NULL CHECK (daily_cap > 0), finals INTEGER NOT NULL CHECK (finals > 0),"
    "  solution_csv BLOB NOT NULL, created_at TEXT NOT NULL);"
    "CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);"
    "CREATE TABLE tokens (id INTEGER PRIMARY KEY, team_id INTEGER NOT NULL REFERENCES teams(id),"
    "  salt BLOB NOT NULL, hash BLOB NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT);"
    "CREATE TABLE submissions (id INTEGER PRIMARY KEY, team_id INTEGER NOT NULL REFERENCES teams(id),"
    "  submitted_at TEXT NOT NULL, day TEXT NOT NULL, csv BLOB NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('queued', 'scoring', 'scored', 'failed')), error TEXT,"
    "  counts_toward_cap INTEGER NOT NULL);"
    "CREATE INDEX submissions_by_team_day ON submissions (team_id, day);"
    "CREATE INDEX submissions_by_status ON submissions (status, id);"
    "CREATE TABLE scores (submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),"
    "  public_score REAL, private_score REAL, report_json TEXT NOT NULL, scored_at TEXT NOT NULL);"
    "CREATE TABLE finals (team_id INTEGER NOT NULL REFERENCES teams(id),"
    "  submission_id INTEGER NOT NULL REFERENCES submissions(id), PRIMARY KEY (team_id, submission_id));",
    // 2: each score keeps its two boards apart from the full report, so a live board ranks
    // thousands of submissions without parsing their per-graph reports.
    "ALTER TABLE scores ADD COLUMN boards_json TEXT;"
    "UPDATE scores SET boards_json = json_object('public', json_extract(report_json, '$.public'),"
    "  'private', json_extract(report_json, '$.private'));",
    // 3: when a submission was claimed for scoring, so that `status` shows one stuck in scoring.
    "ALTER TABLE submissions ADD COLUMN claimed_at TEXT;",
    // 4: what the board measures, and a reference board shown beside it (reference_board.h).
    "ALTER TABLE competition ADD COLUMN about TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE competition ADD COLUMN reference_json TEXT;",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == CompetitionStore::kSchemaVersion, "one migration per schema version");

}  // namespace

int CompetitionStore::schema_version() const {
  SqliteStatement query(db_, path_, "PRAGMA user_version");
  query.step();
  return static_cast<int>(query.integer(0));
}

void CompetitionStore::migrate() {
  SqliteTransaction transaction(db_, path_, true);
  const int version = schema_version();
  SqliteStatement application(db_, path_, "PRAGMA application_id");
  application.step();
  if (version > 0 && application.integer(0) != kApplicationId) {
    throw InputError(path_, "", "a graphcost competition database",
                     "another program's SQLite database (application id " + std::to_string(application.integer(0)) + ")");
  }
  if (version > kSchemaVersion) {
    throw InputError(path_, "schema version", "at most " + std::to_string(kSchemaVersion) + " (this graphcost)",
                     std::to_string(version) + " (written by a newer graphcost)");
  }
  if (version == 0) {  // new, or another program's database
    SqliteStatement tables(db_, path_, "SELECT count(*) FROM sqlite_master");
    tables.step();
    if (tables.integer(0) != 0) throw InputError(path_, "", "a graphcost competition database", "another program's SQLite database");
  }
  if (version == 0) execute("PRAGMA application_id = " + std::to_string(kApplicationId));
  for (int next = version + 1; next <= kSchemaVersion; ++next) {
    execute(kMigrations[next - 1]);
    execute("PRAGMA user_version = " + std::to_string(next));
  }
  transaction.commit();
}

}  // namespace graphcost
