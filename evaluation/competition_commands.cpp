#include "competition_commands.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error_exit.h"
#include "common/input_error.h"
#include "common/internal_error.h"
#include "scoring/leaderboard.h"
#include "scoring/reference_board.h"
#include "scoring/scorer.h"
#include "scoring/submission.h"

namespace graphcost {

int score_queued(CompetitionStore& store, const Solution& solution, int limit) {
  int finished = 0;
  while (limit < 0 || finished < limit) {
    const std::optional<int64_t> id = store.claim_next();
    if (!id) break;
    const std::optional<StoredSubmission> submission = store.submission(*id, true);
    // Validation and scoring only: a failure there (a scorer bug) fails this submission, with the
    // reason, and the queue goes on. Store errors propagate: the submission stays claimed until
    // requeue_interrupted.
    std::optional<ScoreReport> report;
    std::string failure;
    try {
      const SubmissionCheck check = check_submission_text(submission->csv, solution);
      if (check.valid()) report = score_submission(solution, check);
      else failure = check.format_errors("submission " + std::to_string(*id));
    } catch (const std::exception& error) {
      failure = "internal error while scoring, please report: " + error_message(error);
    }
    if (report) store.finish_scored(*id, *report, utc_now());
    else store.finish_failed(*id, failure);
    ++finished;
  }
  return finished;
}

int run_competition_init(const CompetitionInitOptions& options) {
  const Solution solution = load_solution(options.solution);
  CompetitionStore store = CompetitionStore::open(options.db, true);
  store.initialize(options.settings, solution_csv(solution));
  size_t public_count = 0;
  for (const SolutionEntry& entry : solution.entries) public_count += entry.usage == Usage::Public;
  std::printf("created competition '%s' in %s: %zu graphs (%zu Public, %zu Private), deadline %s, %d submissions a day, %d final picks\n",
              printable(options.settings.title).c_str(), options.db.c_str(), solution.entries.size(), public_count,
              solution.entries.size() - public_count, options.settings.deadline.c_str(), options.settings.daily_cap,
              options.settings.finals);
  return 0;
}

int run_competition_team_add(const CompetitionTeamOptions& options) {
  CompetitionStore store = CompetitionStore::open(options.db, false);
  const std::string token = store.add_team(options.name);
  std::printf("team '%s' added; its token (shown only now): %s\n", printable(options.name).c_str(), token.c_str());
  return 0;
}

int run_competition_team_token(const CompetitionTeamOptions& options) {
  CompetitionStore store = CompetitionStore::open(options.db, false);
  const std::string token = store.add_token(options.name);
  std::printf("new token for team '%s' (shown only now): %s\n", printable(options.name).c_str(), token.c_str());
  return 0;
}

int run_competition_team_revoke(const CompetitionTeamOptions& options) {
  CompetitionStore store = CompetitionStore::open(options.db, false);
  const int revoked = store.revoke_team_tokens(options.name);
  std::printf("team '%s': %d token%s revoked\n", printable(options.name).c_str(), revoked, revoked == 1 ? "" : "s");
  return 0;
}

int run_competition_submit(const CompetitionSubmitOptions& options) {
  CompetitionStore store = CompetitionStore::open(options.db, false);
  const std::optional<int64_t> team = store.team_id(options.team);
  if (!team) throw InputError(options.db, "team", "one of the competition's teams", "'" + printable(options.team) + "'");
  const Solution solution = parse_solution(store.solution_csv(), options.db + " (solution)");
  const std::string deadline = store.settings().deadline;
  if (utc_now() >= deadline) {
    std::fprintf(stderr, "the competition closed at %s: no more submissions\n", deadline.c_str());
    return 2;
  }
  const SubmissionCheck check = check_submission_file(options.file, solution);
  if (!check.valid()) {
    std::fprintf(stderr, "invalid submission: %zu error%s\n%s", check.error_count, check.error_count == 1 ? "" : "s",
                 check.format_errors(printable(options.file)).c_str());
    return 2;
  }
  std::ifstream in(options.file, std::ios::binary);
  const std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::optional<int64_t> id = store.accept_submission(*team, csv, utc_now());
  if (!id) {
    std::fprintf(stderr, "team '%s' reached the daily cap (%d submissions per UTC day): not stored\n", printable(options.team).c_str(),
                 store.settings().daily_cap);
    return 2;
  }
  std::printf("submission %lld of team '%s' queued (%zu rows)\n", static_cast<long long>(*id), printable(options.team).c_str(), check.rows);
  return 0;
}

int run_competition_status(const std::string& db) {
  CompetitionStore store = CompetitionStore::open(db, false);
  const CompetitionSettings settings = store.settings();
  const StoreCounts counts = store.counts();
  const std::string now = utc_now();
  std::printf("competition  %s\n", printable(settings.title).c_str());
  std::printf("deadline     %s (%s)\n", settings.deadline.c_str(), now < settings.deadline ? "open" : "closed: private board shown");
  std::printf("rules        %d submissions per team and UTC day, %d final picks\n", settings.daily_cap, settings.finals);
  std::printf("teams        %lld (%lld active tokens)\n", static_cast<long long>(counts.teams),
              static_cast<long long>(counts.active_tokens));
  std::printf("submissions  %lld queued, %lld scoring, %lld scored, %lld failed\n", static_cast<long long>(counts.queued),
              static_cast<long long>(counts.scoring), static_cast<long long>(counts.scored), static_cast<long long>(counts.failed));
  if (!counts.scoring_since.empty()) {
    std::printf("             scoring since %s: a server that cannot store the outcome puts it back and retries (see its log)\n",
                counts.scoring_since.c_str());
  }
  if (!settings.about.empty()) std::printf("about        %s\n", printable(settings.about).c_str());
  const std::string reference = store.reference_json();
  if (!reference.empty()) {
    const nlohmann::json board = nlohmann::json::parse(reference);
    std::printf("reference    '%s': %zu rows x %zu columns\n", printable(board["title"].get<std::string>()).c_str(), board["rows"].size(),
                board["columns"].size());
  }
  std::printf("schema       version %d\n", store.schema_version());
  return 0;
}

// A small text file whole; InputError naming it when unreadable or over `limit` bytes.
std::string read_small_file(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "file", "a readable file", "cannot open it");
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > limit) throw InputError(path, "size", "at most " + std::to_string(limit) + " bytes", "more");
  }
  if (in.bad()) throw InputError(path, "file", "a readable file", "a read error");
  return text;
}

int run_competition_about(const CompetitionAboutOptions& options) {
  CompetitionStore store = CompetitionStore::open(options.db, false);
  if (options.text) {
    store.set_about(*options.text);
    std::printf("about: %s\n", options.text->empty() ? "(none)" : printable(*options.text).c_str());
  }
  if (options.reference) {
    const std::string text = read_small_file(*options.reference, 1 << 20);
    const nlohmann::json board = parse_reference_board(text, *options.reference);
    store.set_reference(board.dump());
    std::printf("reference: '%s', %zu rows x %zu columns\n", printable(board["title"].get<std::string>()).c_str(), board["rows"].size(),
                board["columns"].size());
  } else if (options.no_reference) {
    store.set_reference("");
    std::printf("reference: removed\n");
  }
  return 0;
}

int run_competition_backup(const std::string& db, const std::string& out) {
  const auto started = std::chrono::steady_clock::now();
  CompetitionStore store = CompetitionStore::open(db, false);
  const CompetitionStore::BackupSummary held = store.backup_to(out);
  std::printf("backed up %s to %s: %lld bytes, %lld teams, %lld submissions, quick_check ok, in %.2f s\n", db.c_str(), out.c_str(),
              static_cast<long long>(std::filesystem::file_size(out)), static_cast<long long>(held.teams),
              static_cast<long long>(held.submissions), std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  return 0;
}

int run_competition_rescore(const std::string& db) {
  CompetitionStore store = CompetitionStore::open(db, false);
  const Solution solution = parse_solution(store.solution_csv(), db + " (solution)");
  const int requeued = store.requeue_all();
  const int scored = score_queued(store, solution);
  const StoreCounts counts = store.counts();
  std::printf("rescored %d submissions (%d were scored or failed before): %lld scored, %lld failed\n", scored, requeued,
              static_cast<long long>(counts.scored), static_cast<long long>(counts.failed));
  return 0;
}

Leaderboard stored_leaderboard(const CompetitionStore& store, const Solution& solution, bool final_board) {
  CompetitionSettings settings;
  std::map<int64_t, std::vector<int64_t>> picks;
  std::vector<StoredSubmission> stored;
  std::string reference;
  store.with_snapshot([&] {  // one consistent state, though the worker and uploads go on
    settings = store.settings();
    reference = store.reference_json();
    picks = store.all_finals();
    stored = store.submissions(false);
  });
  std::vector<SubmissionInput> inputs;
  for (const StoredSubmission& s : stored) {
    SubmissionInput input;
    input.team = s.team;
    input.timestamp = s.submitted_at;
    input.name = "submission " + std::to_string(s.id);
    input.number = static_cast<int>(s.id);
    const auto team_picks = picks.find(s.team_id);
    input.picked = team_picks != picks.end() && std::count(team_picks->second.begin(), team_picks->second.end(), s.id) > 0;
    if (s.status == SubmissionStatus::Scored) {
      input.outcome = InputOutcome::Scored;
      input.report = score_boards_from_json(nlohmann::json::parse(s.boards_json));
    } else if (s.status == SubmissionStatus::Failed) {
      input.outcome = InputOutcome::Failed;
      input.message = s.error;
    } else {
      input.outcome = InputOutcome::Pending;
    }
    inputs.push_back(std::move(input));
  }
  LeaderboardOptions board;
  board.final_board = final_board;
  board.daily_cap = settings.daily_cap;
  board.selected = settings.finals;
  Leaderboard leaderboard = build_leaderboard(solution, inputs, board);
  leaderboard.about = settings.about;
  if (!reference.empty()) leaderboard.reference = nlohmann::json::parse(reference);
  return leaderboard;
}

nlohmann::json stored_detail(const CompetitionStore& store, const SubmissionRecord& record, bool final_board) {
  const std::optional<std::string> report = store.report_json(record.number);
  if (!report) throw InternalError("stored_detail: submission " + std::to_string(record.number) + " has no stored report");
  return submission_detail_json(record, nlohmann::json::parse(*report), final_board);
}

int run_competition_export(const CompetitionExportOptions& options) {
  CompetitionStore store = CompetitionStore::open(options.db, false);
  const CompetitionSettings settings = store.settings();
  const Solution solution = parse_solution(store.solution_csv(), options.db + " (solution)");
  const int scored_now = score_queued(store, solution);
  const bool final_board = options.final_board || utc_now() >= settings.deadline;
  const Leaderboard leaderboard = stored_leaderboard(store, solution, final_board);
  write_leaderboard(leaderboard, options.out, [&](const SubmissionRecord& record) { return stored_detail(store, record, final_board); });
  std::printf("%s board: %zu teams, %zu submissions (%d scored now) -> %s/leaderboard.json\n", final_board ? "private" : "public",
              leaderboard.standings.size(), leaderboard.submissions.size(), scored_now, options.out.c_str());
  return 0;
}

}  // namespace graphcost
