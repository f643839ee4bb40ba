// CompetitionStore: one live competition in one SQLite database file (WAL mode). Every state
// change is one transaction, so a process killed at any point leaves the file consistent: a
// submission is either stored whole with its CSV bytes or not at all.
//
// Schema (version 4; PRAGMA user_version, migrations applied in order on open; PRAGMA
// application_id marks the file as graphcost's):
//   competition  (one row) title, deadline (UTC, "2026-12-31T23:59:59Z"), daily_cap, finals,
//                solution_csv (the hidden truth as make-solution writes it; never served),
//                about (what the board measures; version 4), reference_json (a reference board
//                shown beside the standings, scoring/reference_board.h, or NULL; version 4)
//   teams        id, name (unique), created_at
//   tokens       id, team_id, salt, hash = SHA-256(salt || secret), created_at, revoked_at
//   submissions  id, team_id, submitted_at, day (UTC date), csv (the uploaded bytes), status
//                (queued -> scoring -> scored | failed), error, counts_toward_cap, claimed_at
//                (when scoring began; version 3)
//   scores       submission_id, public_score, private_score, report_json, boards_json (the two
//                boards alone: what a live board ranks by; version 2), scored_at
//   finals       team_id, submission_id (a team's picks for the private board)
//
// Tokens are shown once, at creation: "gc_<token id>_<32 hex digits>". Only a salted hash of the
// secret is stored; a check recomputes it and compares in constant time (OpenSSL).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/named_values.h"
#include "scoring/scorer.h"

struct sqlite3;

namespace graphcost {

struct CompetitionSettings {
  std::string title = "graphcost competition";
  std::string deadline;  // UTC "YYYY-MM-DDTHH:MM:SSZ"; the private board is public after it
  int daily_cap = 5;     // accepted submissions per team and UTC day (failed ones do not count)
  int finals = 2;        // submissions a team may pick for the private board
  std::string about;     // what the board measures, shown under the title ("" = nothing)
};

// `about` checked: at most 600 bytes, no control characters (InputError).
void check_about(const std::string& about);

enum class SubmissionStatus { Queued, Scoring, Scored, Failed };
const NameTable<SubmissionStatus>& submission_status_names();  // "queued", "scoring", "scored", "failed": as stored
const char* submission_status_name(SubmissionStatus status);

struct StoredSubmission {
  int64_t id = 0;
  int64_t team_id = 0;
  std::string team;
  std::string submitted_at;  // UTC "YYYY-MM-DDTHH:MM:SSZ"
  SubmissionStatus status = SubmissionStatus::Queued;
  std::string error;  // failed: why
  std::string csv;    // the uploaded bytes (only when asked for)
  std::optional<double> public_score, private_score;
  std::string boards_json;  // scored: score_boards_json of its report
};

struct StoreCounts {
  int64_t teams = 0, active_tokens = 0;
  int64_t queued = 0, scoring = 0, scored = 0, failed = 0;
  std::string scoring_since;  // when the oldest submission being scored was claimed ("" = none)
};

class CompetitionStore {
 public:
  // Opens the database at `path`, creating the file when `create` (else InputError if missing),
  // sets WAL mode and a busy timeout (how long a write waits for another's lock), and migrates to
  // the current schema. Refused (InputError): a database written by a newer graphcost (a higher
  // schema version), an empty file unless `create`, a file with several hard links.
  static CompetitionStore open(const std::string& path, bool create,
                               std::chrono::milliseconds busy_timeout = std::chrono::milliseconds(5000));
  ~CompetitionStore();
  CompetitionStore(CompetitionStore&& other) noexcept;
  CompetitionStore& operator=(CompetitionStore&&) = delete;
  CompetitionStore(const CompetitionStore&) = delete;

  static constexpr int kSchemaVersion = 4;
  int schema_version() const;
  const std::string& path() const { return path_; }

  // The competition: set once (InputError when already set, or for bad settings).
  void initialize(const CompetitionSettings& settings, const std::string& solution_csv);
  bool initialized() const;
  CompetitionSettings settings() const;  // InputError when not initialized
  std::string solution_csv() const;
  // What the board measures, and the reference board beside it: replaced whole; "" removes the
  // reference. The reference is checked by parse_reference_board (InputError).
  void set_about(const std::string& about);
  void set_reference(const std::string& reference_json);
  std::string reference_json() const;  // "" when none

  // Teams and tokens. Names follow team_names.h: stored in NFC, visible characters only, none
  // that reads as an existing team's name (InputError).
  // add_team returns the new token; a team may hold several (team_token adds one more).
  std::string add_team(const std::string& name);
  std::string add_token(const std::string& team_name);
  int revoke_team_tokens(const std::string& team_name);  // returns how many were active
  // The team a token belongs to; nothing for an unknown, malformed or revoked token.
  std::optional<int64_t> team_for_token(const std::string& token) const;
  std::optional<int64_t> team_id(const std::string& name) const;
  std::string team_name(int64_t team_id) const;

  // Stores an upload (already validated) as queued, unless the team has `daily_cap` submissions
  // counting toward the cap on the UTC day of `now` (then nothing is stored and nothing returned).
  // One IMMEDIATE transaction: concurrent uploads cannot pass the cap together.
  std::optional<int64_t> accept_submission(int64_t team_id, const std::string& csv, const std::string& now);

  // The scoring queue. claim_next moves the oldest queued submission to scoring; finish_scored
  // and finish_failed end it (a failed one stops counting toward the cap).
  std::optional<int64_t> claim_next();
  void finish_scored(int64_t id, const ScoreReport& report, const std::string& now);
  void finish_failed(int64_t id, const std::string& error);
  // After a restart: every submission left in scoring goes back to queued (it was never scored:
  // finishing is one transaction). Returns how many.
  int requeue_interrupted();
  // rescore: every scored or failed submission back to queued, scores dropped (one being scored
  // finishes normally). Returns how many.
  int requeue_all();

  std::optional<StoredSubmission> submission(int64_t id, bool with_csv = false) const;
  // All submissions in acceptance order (id), optionally one team's.
  std::vector<StoredSubmission> submissions(bool with_csv = false, std::optional<int64_t> team_id = std::nullopt) const;
  StoreCounts counts() const;
  // A scored submission's full report (score_report_json, private part included).
  std::optional<std::string> report_json(int64_t id) const;

  // Final picks: replaces the team's picks (at most settings().finals, each one of its scored
  // submissions; InputError otherwise).
  void set_finals(int64_t team_id, const std::vector<int64_t>& submission_ids);
  std::vector<int64_t> finals(int64_t team_id) const;
  std::map<int64_t, std::vector<int64_t>> all_finals() const;  // team id -> its picks

  // A consistent copy of the whole database at `out` (SQLite's online backup API, in one read
  // transaction: in WAL mode the server's writes go on meanwhile), as one self-contained file
  // (rollback journal mode) that `serve` and every command open as they open this one. Written to
  // "<out>.partial", checked (PRAGMA quick_check) and renamed: an interrupted backup leaves no
  // file at `out`. Refuses an `out` that exists (InputError): a backup never replaces anything.
  // Returns what the copy holds, read from it before it is closed.
  struct BackupSummary {
    int64_t teams = 0, submissions = 0;
  };
  BackupSummary backup_to(const std::string& out) const;

  // SQLite's PRAGMA data_version: changes when another connection (another process, or the
  // server's other thread) commits to the file. A cache compares it to know when to rebuild.
  int64_t data_version() const;
  // Runs `reads` in one read transaction: all of its queries see the same committed state.
  void with_snapshot(const std::function<void()>& reads) const;

 private:
  explicit CompetitionStore(std::string path);
  void execute(const std::string& sql) const;
  void migrate();
  std::string new_token(int64_t team_id);

  std::string path_;
  sqlite3* db_ = nullptr;
};

// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now();

}  // namespace graphcost
