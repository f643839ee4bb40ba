// Leaderboard: every team's submissions scored, capped and ranked, as JSON for site/.
//
// Input: DIR/<team>/<UTC timestamp>.csv, timestamps written 2023-11-30T17-05-00Z,
// 2023-11-30T17:05:00Z or 20231130T170500Z; or a manifest CSV "team,timestamp,path" (paths relative
// to the manifest). Rules (docs/metrics.md):
//   - submissions are processed in time order; at most `daily_cap` scored submissions per team and
//     UTC day: later ones that day are "over daily cap" and not scored; invalid ones do not count;
//   - public board: a team's best public overall score; ties go to the earlier submission;
//   - private board (--final): the submissions a team picked (live competitions), else its
//     `selected` best-public submissions (Kaggle's default), are scored on the private split and
//     the best counts;
//   - teams rank by score (higher is better), ties to the earlier submission.
// Detail files hold per-graph scores; before --final they hold public graphs only.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/named_values.h"
#include "scoring/scorer.h"
#include "scoring/solution.h"

namespace graphcost {

struct LeaderboardOptions {
  std::string submissions_dir;  // DIR/<team>/<timestamp>.csv, or
  std::string manifest;         // team,timestamp,path
  bool final_board = false;
  int daily_cap = 5;
  int selected = 2;
};

// Where a submission stands on a board: scored, refused by validation, over its team's daily cap,
// or (live boards) not scored yet. JSON and messages use entry_status_names().
enum class EntryStatus { Scored, Invalid, OverDailyCap, Pending };
const NameTable<EntryStatus>& entry_status_names();  // "scored", "invalid", "over daily cap", "pending"

struct SubmissionRecord {
  int number = 0;  // 1-based, in time order; names details/<number>.json
  std::string team;
  std::string timestamp;  // ISO 8601 UTC, "2023-11-30T17:05:00Z"
  std::string file;
  EntryStatus status = EntryStatus::Pending;
  std::string message;  // errors for invalid submissions (first lines)
  bool picked = false;  // chosen by its team for the private board
  ScoreReport report;   // when scored
};

struct TeamStanding {
  int rank = 0;
  std::string team;
  double score = 0;                     // overall on the board
  std::array<double, 5> collections{};  // of the submission that gives `score`
  int entries = 0;                      // scored submissions
  int failed = 0;                       // invalid submissions
  std::string last_submission;
  int best_submission = 0;  // its number
};

struct Leaderboard {
  bool final_board = false;
  // What the board measures, in a sentence, and scores measured elsewhere to show beside it
  // (scoring/reference_board.h; null when none): a live competition's, from its store.
  std::string about;
  nlohmann::json reference;
  std::vector<TeamStanding> standings;
  std::vector<SubmissionRecord> submissions;
  // Entries of the submissions folder that were not read: symbolic links (never followed, so no
  // byte from outside the folder reaches a board) and other non-regular files.
  std::vector<std::string> skipped;
};

// Throws InputError for an unreadable submissions folder or manifest; bad submissions are records.
Leaderboard build_leaderboard(const Solution& solution, const LeaderboardOptions& options);
// The same rules over submissions given as bytes (the live competition's store); `name` stands for
// the file in messages, `timestamp` is ISO 8601 UTC.
//
// A live competition has already decided each submission (competition_store.h): it checked the
// daily cap at upload and scored the submission once. Such an input carries `outcome` (not
// Unscored) and is ranked as it is, never validated or scored again: Scored with its `report`
// (the boards suffice), Failed with its `message`, Pending (queued or being scored) shown without a
// score. Its `number` (the store's id, > 0) names it on the board and in details/<number>.json;
// the inputs are then numbered by it rather than by time order.
enum class InputOutcome { Unscored, Scored, Failed, Pending };
struct SubmissionInput {
  std::string team, timestamp, name, csv;
  bool picked = false;  // a final pick of its team
  InputOutcome outcome = InputOutcome::Unscored;
  ScoreReport report;   // Scored
  std::string message;  // Failed
  int number = 0;       // with an outcome: the store's id
};
Leaderboard build_leaderboard(const Solution& solution, const std::vector<SubmissionInput>& inputs, const LeaderboardOptions& options);
// Writes OUT/leaderboard.json and OUT/details/<number>.json (atomically each), and removes any
// other <number>.json left in OUT/details by an earlier run (a --final board's private scores must
// not outlive it under a public one).
void write_leaderboard(const Leaderboard& leaderboard, const std::string& out_dir);
// The same, with each scored submission's detail JSON given by `detail` (a live competition keeps
// the full reports in its store; its records hold the boards only).
void write_leaderboard(const Leaderboard& leaderboard, const std::string& out_dir,
                       const std::function<nlohmann::json(const SubmissionRecord&)>& detail);
// details/<number>.json of one scored record: its report (public graphs only before the final
// board) with its number, team and timestamp.
nlohmann::json submission_detail_json(const SubmissionRecord& record, nlohmann::json report, bool final_board);
nlohmann::json leaderboard_json(const Leaderboard& leaderboard);

// "2023-11-30T17:05:00Z" from the accepted file-name forms; "" if `name` is none of them or not a
// real UTC time: calendar dates only (leap years counted), seconds 0-59, years 2000-2099 (a year
// 0000 entry would win every tie).
std::string parse_submission_timestamp(const std::string& name);

}  // namespace graphcost
