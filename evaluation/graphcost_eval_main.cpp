// graphcost-eval: the competition evaluator. Builds hidden solutions, validates and scores Kaggle
// submissions, builds leaderboard data for site/, writes baseline submissions, and runs a live
// competition (competition ..., serve).
// Exit codes (common/error_exit.h; 1, 3 and 4 through report_error): 0 ok; 1 bad input (a
// solution, data, option values) and usage errors; 2 an invalid submission (score, competition
// submit) or a refused one (competition submit after the deadline or over the daily cap);
// 3 internal error (please report); 4 I/O: the system refused (disk full, permissions, out of
// memory other than while loading an input file, which is 1).
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/named_option.h"
#include "cli/seed_option.h"
#include "common/error_exit.h"
#include "common/input_error.h"
#include "competition_commands.h"
#include "competition_server.h"
#include "eval_commands.h"
#include "scoring/baseline_order.h"

namespace {

void add_solution_options(CLI::App* command, graphcost::SolutionSource& source, const char* flag) {
  command->add_option(flag, source.path, "solution CSV (make-solution), or an npz tree to score on --split")->required();
  command->add_option("--split", source.split, "split of an npz-tree solution (default valid)");
  graphcost::add_seed_option(command, source.seed, "seed of the Public/Private split of an npz-tree solution");
  command->add_option("--public-fraction", source.public_fraction, "share of each collection's graphs on the Public board")
      ->check(CLI::Range(0.0, 1.0));
}

CLI::App* add_leaderboard_command(CLI::App& app, graphcost::LeaderboardCommandOptions& leaderboard) {
  CLI::App* leaderboard_command = app.add_subcommand("leaderboard", "Score every team's submissions into leaderboard JSON for site/");
  add_solution_options(leaderboard_command, leaderboard.solution, "--solution");
  auto* dir_option = leaderboard_command->add_option("--submissions", leaderboard.submissions_dir, "folder of <team>/<UTC timestamp>.csv");
  auto* manifest_option =
      leaderboard_command->add_option("--manifest", leaderboard.manifest, "CSV team,timestamp,path instead of a folder");
  dir_option->excludes(manifest_option);
  leaderboard_command->add_option("--out", leaderboard.out, "output folder (leaderboard.json, details/)")->required();
  leaderboard_command->add_flag("--final", leaderboard.final_board, "the private board (end of competition)");
  leaderboard_command->add_option("--daily-cap", leaderboard.daily_cap, "scored submissions per team and UTC day")
      ->check(CLI::PositiveNumber);
  return leaderboard_command;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"graphcost-eval: score TpuGraphs submissions (ID,TopConfigs) and build leaderboards"};
  app.require_subcommand(1);

  graphcost::MakeSolutionOptions make_solution;
  CLI::App* make_solution_command = app.add_subcommand("make-solution", "Turn the labelled files of a split into a solution file");
  add_solution_options(make_solution_command, make_solution.source, "--data");
  make_solution_command->add_option("--out", make_solution.out, "solution CSV to write")->required();

  graphcost::ScoreOptions score;
  CLI::App* score_command = app.add_subcommand("score", "Validate a submission strictly, then score it");
  add_solution_options(score_command, score.solution, "--solution");
  score_command->add_option("--submission", score.submission, "submission CSV (ID,TopConfigs)")->required();
  score_command->add_option("--json", score.json_out, "also write the scores (or the errors) as JSON");

  graphcost::LeaderboardCommandOptions leaderboard;
  CLI::App* leaderboard_command = add_leaderboard_command(app, leaderboard);

  graphcost::BaselineOptions baseline;
  CLI::App* baseline_command = app.add_subcommand("baseline", "Write a valid submission from a model-free strategy");
  baseline_command->add_option("--data", baseline.data, "npz tree (e.g. $GRAPHCOST_DATA/tpugraphs)")->required();
  baseline_command->add_option("--split", baseline.split, "split(s) to cover, e.g. test or train,valid (default test)");
  graphcost::add_named_option(baseline_command, "--strategy", baseline.strategy, graphcost::baseline_strategy_names(),
                              "first, reverse, random, fewest-changes (default first)");
  graphcost::add_seed_option(baseline_command, baseline.seed, "seed of the random strategy");
  baseline_command->add_option("--out", baseline.out, "submission CSV to write")->required();

  // competition: the organiser's commands for a live competition in one database file.
  CLI::App* competition_command = app.add_subcommand("competition", "Run a live competition kept in one database file");
  competition_command->require_subcommand(1);
  graphcost::CompetitionInitOptions init;
  CLI::App* init_command = competition_command->add_subcommand("init", "Create the competition: solution, deadline, rules");
  init_command->add_option("--db", init.db, "database file to create (SQLite)")->required();
  add_solution_options(init_command, init.solution, "--solution");
  init_command->add_option("--title", init.settings.title, "shown on the pages");
  init_command->add_option("--deadline", init.settings.deadline, "UTC, e.g. 2026-12-31T23:59:59Z; the private board opens after it")
      ->required();
  init_command->add_option("--daily-cap", init.settings.daily_cap, "submissions per team and UTC day (default 5)")
      ->check(CLI::PositiveNumber);
  init_command->add_option("--finals", init.settings.finals, "submissions a team may pick for the private board (default 2)")
      ->check(CLI::PositiveNumber);
  init_command->add_option("--about", init.settings.about, "one line under the title: what the board measures, on which data");
  CLI::App* team_command = competition_command->add_subcommand("team", "Add a team, give it a token, revoke its tokens");
  team_command->require_subcommand(1);
  graphcost::CompetitionTeamOptions team;
  CLI::App* team_add = team_command->add_subcommand("add", "A new team; prints its token once (the last word of the last line)");
  CLI::App* team_token = team_command->add_subcommand("token", "One more token for a team (printed once)");
  CLI::App* team_revoke = team_command->add_subcommand("revoke", "Revoke every token of a team");
  for (CLI::App* command : {team_add, team_token, team_revoke}) {
    command->add_option("--db", team.db, "competition database")->required();
    command->add_option("name", team.name, "team name")->required();
  }
  graphcost::CompetitionSubmitOptions submit;
  CLI::App* submit_command = competition_command->add_subcommand("submit", "Store a file on a team's behalf (validated, under the cap)");
  submit_command->add_option("--db", submit.db, "competition database")->required();
  submit_command->add_option("--team", submit.team, "the team's name")->required();
  submit_command->add_option("--file", submit.file, "submission CSV (ID,TopConfigs)")->required();
  std::string status_db, rescore_db;
  CLI::App* status_command = competition_command->add_subcommand("status", "Settings, teams and the scoring queue");
  status_command->add_option("--db", status_db, "competition database")->required();
  graphcost::CompetitionAboutOptions about;
  CLI::App* about_command =
      competition_command->add_subcommand("about", "What the board measures, and a reference board of scores measured elsewhere beside it");
  about_command->add_option("--db", about.db, "competition database")->required();
  about_command->add_option("--text", about.text, "one line under the title (\"\" removes it)");
  auto* reference_option = about_command->add_option(
      "--reference", about.reference, "JSON: {title, measures, columns: [{name, metric, note}], rows: [{team, scores, note}]}");
  about_command->add_flag("--no-reference", about.no_reference, "remove the reference board")->excludes(reference_option);
  std::string backup_db, backup_out;
  CLI::App* backup_command = competition_command->add_subcommand("backup", "A consistent copy of the database, while the server runs");
  backup_command->add_option("--db", backup_db, "competition database")->required();
  backup_command->add_option("--out", backup_out, "the copy to write (a new file)")->required();
  CLI::App* rescore_command = competition_command->add_subcommand("rescore", "Score every submission again (after a scorer change)");
  rescore_command->add_option("--db", rescore_db, "competition database")->required();
  graphcost::CompetitionExportOptions export_options;
  CLI::App* export_command = competition_command->add_subcommand("export", "The leaderboard JSON that site/ reads");
  export_command->add_option("--db", export_options.db, "competition database")->required();
  export_command->add_option("--out", export_options.out, "output folder (leaderboard.json, details/)")->required();
  export_command->add_flag("--final", export_options.final_board, "the private board before the deadline");

  graphcost::ServeOptions serve;
  CLI::App* serve_command = app.add_subcommand("serve", "Run the live competition: pages, submissions API, scoring worker");
  serve_command->add_option("--db", serve.db, "competition database (competition init)")->required();
  serve_command->add_option("--bind", serve.bind, "address to listen on (default 127.0.0.1; TLS belongs to a reverse proxy)");
  serve_command->add_option("--port", serve.port, "port (default 8000; 0: any free port, printed)")->check(CLI::Range(0, 65535));
  serve_command->add_option("--app", serve.app_dir, "the WebAssembly build's web/ folder: the app and the in-browser validator at /app/");
  size_t max_upload_mib = serve.max_upload_bytes >> 20;
  serve_command->add_option("--max-upload-mib", max_upload_mib, "largest accepted upload in MiB (default 32)")->check(CLI::Range(1, 1024));
  serve_command->add_option("--rate-limit", serve.requests_per_minute, "API requests a minute per token or address (default 120)")
      ->check(CLI::Range(1, 1000000));
  serve_command->add_option("--threads", serve.threads, "request threads (default 32; a connection waiting for bytes holds none)")
      ->check(CLI::Range(1, 256));
  serve_command->add_option("--trusted-proxy", serve.trusted_proxy,
                            "address of the reverse proxy in front (e.g. 127.0.0.1): its X-Forwarded-For names the client");
  serve_command
      ->add_option("--connections-per-address", serve.connections_per_address,
                   "open connections one client address may hold (default 32; the proxy is exempt)")
      ->check(CLI::Range(1, 100000));
  serve_command->add_option("--timeout", serve.timeout_seconds, "seconds a connection may stall in a read or write (default 10)")
      ->check(CLI::Range(1, 600));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 1;
  }
  if (leaderboard_command->parsed() && leaderboard.submissions_dir.empty() && leaderboard.manifest.empty()) {
    std::fprintf(stderr, "error: leaderboard needs --submissions DIR or --manifest FILE\n");
    return 1;
  }
  try {
    if (make_solution_command->parsed()) return graphcost::run_make_solution(make_solution);
    if (score_command->parsed()) return graphcost::run_score(score);
    if (leaderboard_command->parsed()) return graphcost::run_leaderboard(leaderboard);
    if (baseline_command->parsed()) return graphcost::run_baseline(baseline);
    if (init_command->parsed()) return graphcost::run_competition_init(init);
    if (team_add->parsed()) return graphcost::run_competition_team_add(team);
    if (team_token->parsed()) return graphcost::run_competition_team_token(team);
    if (team_revoke->parsed()) return graphcost::run_competition_team_revoke(team);
    if (submit_command->parsed()) return graphcost::run_competition_submit(submit);
    if (status_command->parsed()) return graphcost::run_competition_status(status_db);
    if (about_command->parsed()) return graphcost::run_competition_about(about);
    if (backup_command->parsed()) return graphcost::run_competition_backup(backup_db, backup_out);
    if (rescore_command->parsed()) return graphcost::run_competition_rescore(rescore_db);
    if (export_command->parsed()) return graphcost::run_competition_export(export_options);
    if (serve_command->parsed()) {
      serve.max_upload_bytes = max_upload_mib << 20;
      return graphcost::run_serve(serve);
    }
  } catch (const std::exception& error) {  // exit 1 bad input, 3 internal error, 4 I/O (common/error_exit.h)
    return graphcost::report_error(error);
  }
  return 1;
}
