// `graphcost-eval competition ...`: the organiser's commands for a live competition kept in one
// database file (competition_store.h). Each returns the exit code; errors are thrown (main maps
// them: common/error_exit.h).
//   init          the competition: solution, title, deadline, daily cap, final picks, about
//   team add      a team and its token (printed once, as the last word of the last line)
//   team token    one more token for a team      team revoke   every token of a team
//   submit        a file on a team's behalf (validated, under the cap), queued for scoring
//   status        the settings, teams and the queue
//   about         what the board measures, and a reference board shown beside it
//   backup        a consistent copy of the database, taken while the server runs
//   rescore       every scored or failed submission scored again (after a scorer change), now
//   export        the leaderboard JSON of site/ (the same files as the offline `leaderboard`);
//                 queued submissions are scored first
#pragma once

#include <optional>
#include <string>

#include "eval_commands.h"
#include "scoring/leaderboard.h"
#include "store/competition_store.h"

namespace graphcost {

struct CompetitionInitOptions {
  std::string db;
  SolutionSource solution;
  CompetitionSettings settings;
};
int run_competition_init(const CompetitionInitOptions& options);

struct CompetitionTeamOptions {
  std::string db, name;
};
int run_competition_team_add(const CompetitionTeamOptions& options);
int run_competition_team_token(const CompetitionTeamOptions& options);
int run_competition_team_revoke(const CompetitionTeamOptions& options);

// submit: an organiser stores a file on a team's behalf (validated, then under the daily cap, as
// an upload); exit 2 when invalid or over the cap. The scoring worker (serve) or export scores it.
struct CompetitionSubmitOptions {
  std::string db, team, file;
};
int run_competition_submit(const CompetitionSubmitOptions& options);

int run_competition_status(const std::string& db);

// What the board says it measures (--text) and the reference board beside it (--reference FILE,
// scoring/reference_board.h; --no-reference removes it). Shown at the server's next board rebuild.
struct CompetitionAboutOptions {
  std::string db;
  std::optional<std::string> text, reference;
  bool no_reference = false;
};
int run_competition_about(const CompetitionAboutOptions& options);
// backup: a consistent copy while the server runs (CompetitionStore::backup_to); restore = stop
// the server, put the copy in the database's place, start it.
int run_competition_backup(const std::string& db, const std::string& out);
int run_competition_rescore(const std::string& db);

struct CompetitionExportOptions {
  std::string db, out;
  bool final_board = false;  // also forced once the deadline has passed
};
int run_competition_export(const CompetitionExportOptions& options);

// The scoring worker's loop, also run by rescore: claims queued submissions one at a time and
// scores each as `graphcost-eval score` does (validated again; a submission that fails ends
// `failed` with its errors and stops counting toward the cap). Stops when the queue is empty or
// after `limit` submissions (< 0: no limit). Returns how many it finished.
int score_queued(CompetitionStore& store, const Solution& solution, int limit = -1);

// The board of what the store holds, ranked by the rules of scoring/leaderboard.h from the stored
// outcomes: nothing is validated or scored again, so it is cheap enough to rebuild after every
// scored submission. Numbers are the store's submission ids; queued ones show as "pending".
Leaderboard stored_leaderboard(const CompetitionStore& store, const Solution& solution, bool final_board);
// details/<number>.json of a scored record of stored_leaderboard, from its stored full report
// (private part only on the final board).
nlohmann::json stored_detail(const CompetitionStore& store, const SubmissionRecord& record, bool final_board);

}  // namespace graphcost
