#include "competition_commands.h"

#include <algorithm>
#include <cstdio>

#include "common/input_error.h"
#include "scoring/leaderboard.h"
#include "scoring/scorer.h"
#include "scoring/submission.h"

namespace graphcost {

int score_queued(CompetitionStore& store, const Solution& solution, int limit) {
  int finished = 0;
  while (limit < 0 || finished < limit) {
    const std::optional<int64_t> id = store.claim_next();
    if (!id) break;
    const std::optional<StoredSubmission> submission = store.submission(*id, true);
    const SubmissionCheck check = check_submission_text(submission->csv, solution);
    if (!check.valid()) {
      store.finish_failed(*id, check.format_errors("submission " + std::to_string(*id)));
    } else {
      const ScoreReport report = score_submission(solution, check);
      store.finish_scored(*id, report.public_board.overall, report.private_board.overall, score_report_json(report).dump(), utc_now());
    }
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
  std::printf("schema       version %d\n", store.schema_version());
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

int run_competition_export(const CompetitionExportOptions& options) {
  CompetitionStore store = CompetitionStore::open(options.db, false);
  const CompetitionSettings settings = store.settings();
  const Solution solution = parse_solution(store.solution_csv(), options.db + " (solution)");
  std::vector<SubmissionInput> inputs;
  for (const StoredSubmission& s : store.submissions(true)) {
    const std::vector<int64_t> picks = store.finals(s.team_id);
    const bool picked = std::find(picks.begin(), picks.end(), s.id) != picks.end();
    inputs.push_back({s.team, s.submitted_at, "submission " + std::to_string(s.id) + ".csv", s.csv, picked});
  }
  LeaderboardOptions board;
  board.final_board = options.final_board || utc_now() >= settings.deadline;
  board.daily_cap = settings.daily_cap;
  board.selected = settings.finals;
  const Leaderboard leaderboard = build_leaderboard(solution, inputs, board);
  write_leaderboard(leaderboard, options.out);
  std::printf("%s board: %zu teams, %zu submissions -> %s/leaderboard.json\n", board.final_board ? "private" : "public",
              leaderboard.standings.size(), leaderboard.submissions.size(), options.out.c_str());
  return 0;
}

}  // namespace graphcost
