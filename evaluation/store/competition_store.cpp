#include "store/competition_store.h"

#include <sqlite3.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <functional>
#include <utility>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "scoring/leaderboard.h"
#include "scoring/reference_board.h"
#include "store/sqlite_statement.h"
#include "store/team_names.h"
#include "store/team_tokens.h"

namespace graphcost {
namespace {

StoredSubmission read_submission(const SqliteStatement& row, bool with_csv) {
  // Columns: id, team_id, name, submitted_at, status, error, public_score, private_score, boards_json[, csv]
  StoredSubmission s;
  s.id = row.integer(0);
  s.team_id = row.integer(1);
  s.team = row.text(2);
  s.submitted_at = row.text(3);
  s.status = value_named(submission_status_names(), row.text(4), "submissions.status");
  s.error = row.text(5);
  if (!row.is_null(6)) s.public_score = row.real(6);
  if (!row.is_null(7)) s.private_score = row.real(7);
  if (!row.is_null(8)) s.boards_json = row.text(8);
  if (with_csv) s.csv = row.blob(9);
  return s;
}

}  // namespace

const NameTable<SubmissionStatus>& submission_status_names() {
  static const NameTable<SubmissionStatus> names = {{"queued", SubmissionStatus::Queued},
                                                    {"scoring", SubmissionStatus::Scoring},
                                                    {"scored", SubmissionStatus::Scored},
                                                    {"failed", SubmissionStatus::Failed}};
  return names;
}

const char* submission_status_name(SubmissionStatus status) { return name_of(submission_status_names(), status).c_str(); }

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

CompetitionStore::CompetitionStore(std::string path) : path_(std::move(path)) {}

CompetitionStore::CompetitionStore(CompetitionStore&& other) noexcept
    : path_(std::move(other.path_)), db_(std::exchange(other.db_, nullptr)) {}

CompetitionStore::~CompetitionStore() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

CompetitionStore CompetitionStore::open(const std::string& path, bool create, std::chrono::milliseconds busy_timeout) {
  CompetitionStore store(path);
  std::error_code error;
  if (!create && !std::filesystem::is_regular_file(path, error)) {
    throw InputError(path, "", "a competition database (graphcost-eval competition init creates one)", "no such file");
  }
  // Only `init` may give an empty file a schema: anything else would turn a mistyped path into a
  // database that then fails as "no competition".
  if (!create && std::filesystem::file_size(path, error) == 0 && !error) {
    throw InputError(path, "", "a competition database (graphcost-eval competition init creates one)", "an empty file");
  }
  // SQLite keeps its write-ahead log beside the name it was opened by: two names of one file
  // (hard links) are two logs, and writes through one are lost to the other.
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) && status.st_nlink > 1) {
    throw InputError(
        path, "", "a database file with one name",
        std::to_string(status.st_nlink) + " hard links (SQLite would keep one log per name and lose writes): remove the others");
  }
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
  const int code = sqlite3_open_v2(path.c_str(), &store.db_, flags, nullptr);
  if (code != SQLITE_OK) fail_sqlite(store.db_, code, path, "opening the database");
  sqlite3_busy_timeout(store.db_, static_cast<int>(busy_timeout.count()));
  store.execute("PRAGMA foreign_keys = ON");
  SqliteStatement(store.db_, store.path_, "PRAGMA journal_mode = WAL").run();
  store.execute("PRAGMA synchronous = FULL");  // a 2xx answer means the submission is on disk
  store.migrate();
  return store;
}

void CompetitionStore::execute(const std::string& sql) const {
  char* message = nullptr;
  const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);
  if (code != SQLITE_OK) fail_sqlite(db_, code, path_, "running '" + sql.substr(0, 40) + "'");
}

void check_about(const std::string& about) { check_board_text(about, "", "about"); }

void CompetitionStore::initialize(const CompetitionSettings& settings, const std::string& solution_csv) {
  if (parse_submission_timestamp(settings.deadline) != settings.deadline) {
    throw InputError("", "deadline", "a UTC time like 2026-12-31T23:59:59Z", "'" + printable(settings.deadline) + "'");
  }
  if (settings.daily_cap < 1) throw InputError("", "daily cap", "at least 1", std::to_string(settings.daily_cap));
  if (settings.finals < 1) throw InputError("", "final picks", "at least 1", std::to_string(settings.finals));
  check_about(settings.about);
  SqliteTransaction transaction(db_, path_, true);
  if (initialized()) throw InputError(path_, "competition", "a database without a competition", "one is set already");
  SqliteStatement(
      db_, path_,
      "INSERT INTO competition (id, title, deadline, daily_cap, finals, solution_csv, created_at, about) VALUES (1, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, settings.title)
      .bind(2, settings.deadline)
      .bind(3, static_cast<int64_t>(settings.daily_cap))
      .bind(4, static_cast<int64_t>(settings.finals))
      .bind_blob(5, solution_csv)
      .bind(6, utc_now())
      .bind(7, settings.about)
      .run();
  transaction.commit();
}

void CompetitionStore::set_about(const std::string& about) {
  check_about(about);
  SqliteTransaction transaction(db_, path_, true);
  settings();  // refuses a database without a competition
  SqliteStatement(db_, path_, "UPDATE competition SET about = ?").bind(1, about).run();
  transaction.commit();
}

void CompetitionStore::set_reference(const std::string& reference_json) {
  if (!reference_json.empty()) parse_reference_board(reference_json, path_ + " (reference)");
  SqliteTransaction transaction(db_, path_, true);
  settings();
  SqliteStatement update(db_, path_, "UPDATE competition SET reference_json = ?");
  if (reference_json.empty()) update.bind_null(1);
  else update.bind(1, reference_json);
  update.run();
  transaction.commit();
}

std::string CompetitionStore::reference_json() const {
  SqliteStatement query(db_, path_, "SELECT reference_json FROM competition");
  if (!query.step()) return "";
  return query.is_null(0) ? "" : query.text(0);
}

bool CompetitionStore::initialized() const {
  SqliteStatement query(db_, path_, "SELECT count(*) FROM competition");
  query.step();
  return query.integer(0) == 1;
}

CompetitionSettings CompetitionStore::settings() const {
  SqliteStatement query(db_, path_, "SELECT title, deadline, daily_cap, finals, about FROM competition");
  if (!query.step()) throw InputError(path_, "competition", "a competition (graphcost-eval competition init)", "none set");
  CompetitionSettings settings;
  settings.title = query.text(0);
  settings.deadline = query.text(1);
  settings.daily_cap = static_cast<int>(query.integer(2));
  settings.finals = static_cast<int>(query.integer(3));
  settings.about = query.text(4);
  return settings;
}

std::string CompetitionStore::solution_csv() const {
  SqliteStatement query(db_, path_, "SELECT solution_csv FROM competition");
  if (!query.step()) throw InputError(path_, "competition", "a competition (graphcost-eval competition init)", "none set");
  return query.blob(0);
}

std::string CompetitionStore::new_token(int64_t team_id) {
  const std::string secret = new_token_secret();
  const std::string salt = new_token_salt();
  SqliteStatement(db_, path_, "INSERT INTO tokens (team_id, salt, hash, created_at) VALUES (?, ?, ?, ?)")
      .bind(1, team_id)
      .bind_blob(2, salt)
      .bind_blob(3, token_hash(salt, secret))
      .bind(4, utc_now())
      .run();
  return format_token(sqlite3_last_insert_rowid(db_), secret);
}

std::string CompetitionStore::add_team(const std::string& requested_name) {
  const std::string name = normalized_team_name(requested_name);
  const std::string key = team_name_key(name);
  SqliteTransaction transaction(db_, path_, true);
  SqliteStatement names(db_, path_, "SELECT name FROM teams");
  while (names.step()) {
    const std::string existing = names.text(0);
    if (existing == name) throw InputError(path_, "team '" + printable(name) + "'", "a new team name", "a team of that name exists");
    if (team_name_key(existing) == key) {
      throw InputError(path_, "team name '" + printable(name) + "'", "a name that does not read as another team's",
                       "it reads as the existing team '" + printable(existing) + "' (same letters after Unicode NFKC and case folding)");
    }
  }
  SqliteStatement(db_, path_, "INSERT INTO teams (name, created_at) VALUES (?, ?)").bind(1, name).bind(2, utc_now()).run();
  const std::string token = new_token(sqlite3_last_insert_rowid(db_));
  transaction.commit();
  return token;
}

std::string CompetitionStore::add_token(const std::string& team_name) {
  SqliteTransaction transaction(db_, path_, true);
  const std::optional<int64_t> team = team_id(team_name);
  if (!team) throw InputError(path_, "team '" + printable(team_name) + "'", "an existing team", "no such team");
  const std::string token = new_token(*team);
  transaction.commit();
  return token;
}

int CompetitionStore::revoke_team_tokens(const std::string& team_name) {
  SqliteTransaction transaction(db_, path_, true);
  const std::optional<int64_t> team = team_id(team_name);
  if (!team) throw InputError(path_, "team '" + printable(team_name) + "'", "an existing team", "no such team");
  SqliteStatement(db_, path_, "UPDATE tokens SET revoked_at = ? WHERE team_id = ? AND revoked_at IS NULL")
      .bind(1, utc_now())
      .bind(2, *team)
      .run();
  const int revoked = sqlite3_changes(db_);
  transaction.commit();
  return revoked;
}

std::optional<int64_t> CompetitionStore::team_for_token(const std::string& token) const {
  const std::optional<TokenParts> parts = parse_token(token);
  if (!parts) return std::nullopt;
  SqliteStatement query(db_, path_, "SELECT team_id, salt, hash FROM tokens WHERE id = ? AND revoked_at IS NULL");
  query.bind(1, parts->id);
  if (!query.step()) return std::nullopt;
  if (!same_token_hash(query.blob(2), token_hash(query.blob(1), parts->secret))) return std::nullopt;
  return query.integer(0);
}

std::optional<int64_t> CompetitionStore::team_id(const std::string& name) const {
  std::string stored = name;  // names are stored in NFC: a name typed decomposed finds its team
  try {
    stored = normalized_team_name(name);
  } catch (const InputError&) {
  }
  SqliteStatement query(db_, path_, "SELECT id FROM teams WHERE name = ?");
  query.bind(1, stored);
  if (!query.step()) return std::nullopt;
  return query.integer(0);
}

std::string CompetitionStore::team_name(int64_t team_id) const {
  SqliteStatement query(db_, path_, "SELECT name FROM teams WHERE id = ?");
  query.bind(1, team_id);
  if (!query.step()) throw InternalError("no team " + std::to_string(team_id));
  return query.text(0);
}

std::optional<int64_t> CompetitionStore::accept_submission(int64_t team_id, const std::string& csv, const std::string& now) {
  const std::string day = now.substr(0, 10);
  SqliteTransaction transaction(db_, path_, true);
  const CompetitionSettings rules = settings();
  SqliteStatement counted(db_, path_, "SELECT count(*) FROM submissions WHERE team_id = ? AND day = ? AND counts_toward_cap = 1");
  counted.bind(1, team_id).bind(2, day).step();
  if (counted.integer(0) >= rules.daily_cap) return std::nullopt;
  SqliteStatement(db_, path_,
                  "INSERT INTO submissions (team_id, submitted_at, day, csv, status, counts_toward_cap) VALUES (?, ?, ?, ?, 'queued', 1)")
      .bind(1, team_id)
      .bind(2, now)
      .bind(3, day)
      .bind_blob(4, csv)
      .run();
  const int64_t id = sqlite3_last_insert_rowid(db_);
  transaction.commit();
  return id;
}

std::optional<int64_t> CompetitionStore::claim_next() {
  SqliteTransaction transaction(db_, path_, true);
  SqliteStatement next(db_, path_, "SELECT id FROM submissions WHERE status = 'queued' ORDER BY id LIMIT 1");
  if (!next.step()) return std::nullopt;
  const int64_t id = next.integer(0);
  SqliteStatement(db_, path_, "UPDATE submissions SET status = 'scoring', claimed_at = ? WHERE id = ?")
      .bind(1, utc_now())
      .bind(2, id)
      .run();
  transaction.commit();
  return id;
}

void CompetitionStore::finish_scored(int64_t id, const ScoreReport& report, const std::string& now) {
  SqliteTransaction transaction(db_, path_, true);
  SqliteStatement(db_, path_,
                  "UPDATE submissions SET status = 'scored', error = NULL, counts_toward_cap = 1 WHERE id = ? AND status = 'scoring'")
      .bind(1, id)
      .run();
  if (sqlite3_changes(db_) != 1) throw InternalError("finish_scored: submission " + std::to_string(id) + " is not being scored");
  SqliteStatement(db_, path_,
                  "INSERT OR REPLACE INTO scores (submission_id, public_score, private_score, report_json, boards_json, scored_at) "
                  "VALUES (?, ?, ?, ?, ?, ?)")
      .bind(1, id)
      .bind(2, report.public_board.overall)
      .bind(3, report.private_board.overall)
      .bind(4, score_report_json(report).dump())
      .bind(5, score_boards_json(report).dump())
      .bind(6, now)
      .run();
  transaction.commit();
}

void CompetitionStore::finish_failed(int64_t id, const std::string& error) {
  SqliteTransaction transaction(db_, path_, true);
  SqliteStatement(db_, path_,
                  "UPDATE submissions SET status = 'failed', error = ?, counts_toward_cap = 0 WHERE id = ? AND status = 'scoring'")
      .bind(1, error)
      .bind(2, id)
      .run();
  if (sqlite3_changes(db_) != 1) throw InternalError("finish_failed: submission " + std::to_string(id) + " is not being scored");
  SqliteStatement(db_, path_, "DELETE FROM finals WHERE submission_id = ?").bind(1, id).run();
  transaction.commit();
}

int CompetitionStore::requeue_interrupted() {
  SqliteTransaction transaction(db_, path_, true);
  SqliteStatement(db_, path_, "UPDATE submissions SET status = 'queued', claimed_at = NULL WHERE status = 'scoring'").run();
  const int count = sqlite3_changes(db_);
  transaction.commit();
  return count;
}

int CompetitionStore::requeue_all() {
  SqliteTransaction transaction(db_, path_, true);
  SqliteStatement(db_, path_, "DELETE FROM scores").run();
  // Scored and failed only: one being scored (by a running server) finishes normally. The cap
  // flags stay until the new outcome sets them.
  SqliteStatement(db_, path_, "UPDATE submissions SET status = 'queued', error = NULL WHERE status IN ('scored', 'failed')").run();
  const int count = sqlite3_changes(db_);
  transaction.commit();
  return count;
}

std::optional<StoredSubmission> CompetitionStore::submission(int64_t id, bool with_csv) const {
  SqliteStatement query(
      db_, path_,
      "SELECT s.id, s.team_id, t.name, s.submitted_at, s.status, s.error, c.public_score, c.private_score, c.boards_json, "
      "CASE WHEN ? THEN s.csv END "
      "FROM submissions s JOIN teams t ON t.id = s.team_id LEFT JOIN scores c ON c.submission_id = s.id WHERE s.id = ?");
  query.bind(1, static_cast<int64_t>(with_csv)).bind(2, id);
  if (!query.step()) return std::nullopt;
  return read_submission(query, with_csv);
}

std::vector<StoredSubmission> CompetitionStore::submissions(bool with_csv, std::optional<int64_t> team_id) const {
  SqliteStatement query(
      db_, path_,
      "SELECT s.id, s.team_id, t.name, s.submitted_at, s.status, s.error, c.public_score, c.private_score, c.boards_json, "
      "CASE WHEN ? THEN s.csv END "
      "FROM submissions s JOIN teams t ON t.id = s.team_id LEFT JOIN scores c ON c.submission_id = s.id "
      "WHERE ? IS NULL OR s.team_id = ? ORDER BY s.id");
  query.bind(1, static_cast<int64_t>(with_csv));
  if (team_id) query.bind(2, *team_id).bind(3, *team_id);
  std::vector<StoredSubmission> all;
  while (query.step()) all.push_back(read_submission(query, with_csv));
  return all;
}

StoreCounts CompetitionStore::counts() const {
  StoreCounts counts;
  SqliteStatement teams(db_, path_, "SELECT (SELECT count(*) FROM teams), (SELECT count(*) FROM tokens WHERE revoked_at IS NULL)");
  teams.step();
  counts.teams = teams.integer(0);
  counts.active_tokens = teams.integer(1);
  SqliteStatement statuses(db_, path_, "SELECT status, count(*) FROM submissions GROUP BY status");
  while (statuses.step()) {
    const SubmissionStatus status = value_named(submission_status_names(), statuses.text(0), "submissions.status");
    (status == SubmissionStatus::Queued    ? counts.queued
     : status == SubmissionStatus::Scoring ? counts.scoring
     : status == SubmissionStatus::Scored  ? counts.scored
                                           : counts.failed) = statuses.integer(1);
  }
  SqliteStatement claimed(db_, path_, "SELECT min(claimed_at) FROM submissions WHERE status = 'scoring'");
  if (claimed.step() && !claimed.is_null(0)) counts.scoring_since = claimed.text(0);
  return counts;
}

void CompetitionStore::set_finals(int64_t team_id, const std::vector<int64_t>& submission_ids) {
  SqliteTransaction transaction(db_, path_, true);
  const CompetitionSettings rules = settings();
  if (static_cast<int>(submission_ids.size()) > rules.finals) {
    throw InputError("", "final picks", "at most " + std::to_string(rules.finals), std::to_string(submission_ids.size()));
  }
  for (size_t i = 0; i < submission_ids.size(); ++i) {
    if (std::count(submission_ids.begin(), submission_ids.begin() + static_cast<long>(i), submission_ids[i]) > 0) {
      throw InputError("", "final picks", "distinct submission ids", std::to_string(submission_ids[i]) + " twice");
    }
  }
  SqliteStatement(db_, path_, "DELETE FROM finals WHERE team_id = ?").bind(1, team_id).run();
  for (const int64_t id : submission_ids) {
    SqliteStatement owned(db_, path_, "SELECT count(*) FROM submissions WHERE id = ? AND team_id = ? AND status = 'scored'");
    owned.bind(1, id).bind(2, team_id).step();
    if (owned.integer(0) != 1) {
      throw InputError("", "final pick " + std::to_string(id), "one of the team's scored submissions", "not one");
    }
    SqliteStatement(db_, path_, "INSERT OR IGNORE INTO finals (team_id, submission_id) VALUES (?, ?)").bind(1, team_id).bind(2, id).run();
  }
  transaction.commit();
}

std::optional<std::string> CompetitionStore::report_json(int64_t id) const {
  SqliteStatement query(db_, path_, "SELECT report_json FROM scores WHERE submission_id = ?");
  query.bind(1, id);
  if (!query.step()) return std::nullopt;
  return query.text(0);
}

std::map<int64_t, std::vector<int64_t>> CompetitionStore::all_finals() const {
  SqliteStatement query(db_, path_, "SELECT team_id, submission_id FROM finals ORDER BY team_id, submission_id");
  std::map<int64_t, std::vector<int64_t>> picks;
  while (query.step()) picks[query.integer(0)].push_back(query.integer(1));
  return picks;
}

void CompetitionStore::with_snapshot(const std::function<void()>& reads) const {
  SqliteTransaction transaction(db_, path_, false);
  reads();
  transaction.commit();
}

int64_t CompetitionStore::data_version() const {
  SqliteStatement query(db_, path_, "PRAGMA data_version");
  query.step();
  return query.integer(0);
}

std::vector<int64_t> CompetitionStore::finals(int64_t team_id) const {
  SqliteStatement query(db_, path_, "SELECT submission_id FROM finals WHERE team_id = ? ORDER BY submission_id");
  query.bind(1, team_id);
  std::vector<int64_t> ids;
  while (query.step()) ids.push_back(query.integer(0));
  return ids;
}

}  // namespace graphcost
