// graphcost-eval: the competition evaluator. Builds hidden solutions, validates and scores Kaggle
// submissions, builds leaderboard data for site/, writes baseline submissions, and runs a live
// competition (competition ..., serve). Subcommands live in eval_commands.*,
// competition_commands.* and competition_server.*; this file only parses arguments (one function
// per command, as src/cli/graphcost_main.cpp) and turns errors into exit codes.
// Exit codes (common/error_exit.h; 1, 3 and 4 through report_error): 0 ok; 1 bad input (a
// solution, data, option values) and usage errors; 2 an invalid submission (score, competition
// submit) or a refused one (competition submit after the deadline or over the daily cap);
// 3 internal error (please report); 4 I/O: the system refused (disk full, permissions, out of
// memory other than while loading an input file, which is 1).
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli_options/named_option.h"
#include "cli_options/seed_option.h"
#include "common/error_exit.h"
#include "common/input_error.h"
#include "competition_commands.h"
#include "eval_commands.h"
#include "scoring/baseline_order.h"
#include "server/competition_server.h"

namespace {

void add_solution_options(CLI::App* command, graphcost::SolutionSource& source, const char* flag) {
  command->add_option(flag, source.path, "solution CSV (make-solution), or an npz tree to score on --split")->required();
  command->add_option("--split", source.split, "split of an npz-tree solution")->capture_default_str();
  graphcost::add_seed_option(command, source.seed, "seed of the Public/Private split of an npz-tree solution");
  command->add_option("--public-fraction", source.public_fraction, "share of each collection's graphs on the Public board")
      ->check(CLI::Range(0.0, 1.0));
}

CLI::App* add_make_solution_command(CLI::App& app, graphcost::MakeSolutionOptions& make_solution) {
  CLI::App* make_solution_command = app.add_subcommand("make-solution", "Turn the labelled files of a split into a solution file");
  add_solution_options(make_solution_command, make_solution.source, "--data");
  make_solution_command->add_option("--out", make_solution.out, "solution CSV to write")->required();
  return make_solution_command;
}

CLI::App* add_score_command(CLI::App& app, graphcost::ScoreOptions& score) {
  CLI::App* score_command = app.add_subcommand("score", "Validate a submission strictly, then score it");
  add_solution_options(score_command, score.solution, "--solution");
  score_command->add_option("--submission", score.submission, "submission CSV (ID,TopConfigs)")->required();
  score_command->add_option("--json", score.json_out, "also write the scores (or the errors) as JSON");
  return score_command;
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

CLI::App* add_baseline_command(CLI::App& app, graphcost::BaselineOptions& baseline) {
  CLI::App* baseline_command = app.add_subcommand("baseline", "Write a valid submission from a model-free strategy");
  baseline_command->add_option("--data", baseline.data, "npz tree (e.g. $GRAPHCOST_DATA/tpugraphs)")->required();
  baseline_command->add_option("--split", baseline.split, "split(s) to cover, e.g. test or train,valid")->capture_default_str();
  graphcost::add_named_option(baseline_command, "--strategy", baseline.strategy, graphcost::baseline_strategy_names(),
                              "first, reverse, random, fewest-changes");
  graphcost::add_seed_option(baseline_command, baseline.seed, "seed of the random strategy");
  baseline_command->add_option("--out", baseline.out, "submission CSV to write")->required();
  return baseline_command;
}

// competition: the organiser's commands for a live competition in one database file.

CLI::App* add_init_command(CLI::App& competition, graphcost::CompetitionInitOptions& init) {
  CLI::App* init_command = competition.add_subcommand("init", "Create the competition: solution, deadline, rules");
  init_command->add_option("--db", init.db, "database file to create (SQLite)")->required();
  add_solution_options(init_command, init.solution, "--solution");
  init_command->add_option("--title", init.settings.title, "shown on the pages");
  init_command->add_option("--deadline", init.settings.deadline, "UTC, e.g. 2026-12-31T23:59:59Z; the private board opens after it")
      ->required();
  init_command->add_option("--daily-cap", init.settings.daily_cap, "submissions per team and UTC day")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  init_command->add_option("--finals", init.settings.finals, "submissions a team may pick for the private board")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  init_command->add_option("--about", init.settings.about, "one line under the title: what the board measures, on which data");
  return init_command;
}

struct TeamCommands {
  CLI::App *add, *token, *revoke;
};

TeamCommands add_team_commands(CLI::App& competition, graphcost::CompetitionTeamOptions& team) {
  CLI::App* team_command = competition.add_subcommand("team", "Add a team, give it a token, revoke its tokens");
  team_command->require_subcommand(1);
  const TeamCommands commands = {
      team_command->add_subcommand("add", "A new team; prints its token once (the last word of the last line)"),
      team_command->add_subcommand("token", "One more token for a team (printed once)"),
      team_command->add_subcommand("revoke", "Revoke every token of a team"),
  };
  for (CLI::App* command : {commands.add, commands.token, commands.revoke}) {
    command->add_option("--db", team.db, "competition database")->required();
    command->add_option("name", team.name, "team name")->required();
  }
  return commands;
}

CLI::App* add_submit_command(CLI::App& competition, graphcost::CompetitionSubmitOptions& submit) {
  CLI::App* submit_command = competition.add_subcommand("submit", "Store a file on a team's behalf (validated, under the cap)");
  submit_command->add_option("--db", submit.db, "competition database")->required();
  submit_command->add_option("--team", submit.team, "the team's name")->required();
  submit_command->add_option("--file", submit.file, "submission CSV (ID,TopConfigs)")->required();
  return submit_command;
}

// status and rescore: a competition command whose one option is the database.
CLI::App* add_database_command(CLI::App& competition, const char* name, const char* description, std::string& db) {
  CLI::App* command = competition.add_subcommand(name, description);
  command->add_option("--db", db, "competition database")->required();
  return command;
}

CLI::App* add_about_command(CLI::App& competition, graphcost::CompetitionAboutOptions& about) {
  CLI::App* about_command =
      competition.add_subcommand("about", "What the board measures, and a reference board of scores measured elsewhere beside it");
  about_command->add_option("--db", about.db, "competition database")->required();
  about_command->add_option("--text", about.text, "one line under the title (\"\" removes it)");
  auto* reference_option = about_command->add_option(
      "--reference", about.reference, "JSON: {title, measures, columns: [{name, metric, note}], rows: [{team, scores, note}]}");
  about_command->add_flag("--no-reference", about.no_reference, "remove the reference board")->excludes(reference_option);
  return about_command;
}

CLI::App* add_backup_command(CLI::App& competition, std::string& db, std::string& out) {
  CLI::App* backup_command = competition.add_subcommand("backup", "A consistent copy of the database, while the server runs");
  backup_command->add_option("--db", db, "competition database")->required();
  backup_command->add_option("--out", out, "the copy to write (a new file)")->required();
  return backup_command;
}

CLI::App* add_export_command(CLI::App& competition, graphcost::CompetitionExportOptions& export_options) {
  CLI::App* export_command = competition.add_subcommand("export", "The leaderboard JSON that site/ reads");
  export_command->add_option("--db", export_options.db, "competition database")->required();
  export_command->add_option("--out", export_options.out, "output folder (leaderboard.json, details/)")->required();
  export_command->add_flag("--final", export_options.final_board, "the private board before the deadline");
  return export_command;
}

CLI::App* add_serve_command(CLI::App& app, graphcost::ServeOptions& serve) {
  CLI::App* serve_command = app.add_subcommand("serve", "Run the live competition: pages, submissions API, scoring worker");
  serve_command->add_option("--db", serve.db, "competition database (competition init)")->required();
  serve_command->add_option("--bind", serve.bind, "address to listen on (TLS belongs to a reverse proxy)")->capture_default_str();
  serve_command->add_option("--port", serve.port, "port (0: any free port, printed)")->capture_default_str()->check(CLI::Range(0, 65535));
  serve_command->add_option("--app", serve.app_dir, "the WebAssembly build's web/ folder: the app and the in-browser validator at /app/");
  serve_command
      ->add_option_function<size_t>(
          "--max-upload-mib", [&serve](size_t mib) { serve.max_upload_bytes = mib << 20; }, "largest accepted upload in MiB")
      ->check(CLI::Range(1, 1024))
      ->default_str(std::to_string(serve.max_upload_bytes >> 20));
  serve_command->add_option("--rate-limit", serve.requests_per_minute, "API requests a minute per token or address")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  serve_command->add_option("--threads", serve.threads, "request threads (a connection waiting for bytes holds none)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  serve_command->add_option("--trusted-proxy", serve.trusted_proxy,
                            "address of the reverse proxy in front (e.g. 127.0.0.1): its X-Forwarded-For names the client");
  serve_command
      ->add_option("--connections-per-address", serve.connections_per_address,
                   "open connections one client address may hold (the proxy is exempt)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  serve_command->add_option("--timeout", serve.timeout_seconds, "seconds a connection may stall in a read or write")
      ->capture_default_str()
      ->check(CLI::Range(1, 600));
  return serve_command;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"graphcost-eval: score TpuGraphs submissions (ID,TopConfigs) and build leaderboards"};
  app.require_subcommand(1);

  graphcost::MakeSolutionOptions make_solution;
  graphcost::ScoreOptions score;
  graphcost::LeaderboardCommandOptions leaderboard;
  graphcost::BaselineOptions baseline;
  graphcost::CompetitionInitOptions init;
  graphcost::CompetitionTeamOptions team;
  graphcost::CompetitionSubmitOptions submit;
  graphcost::CompetitionAboutOptions about;
  graphcost::CompetitionExportOptions export_options;
  std::string status_db, rescore_db, backup_db, backup_out;
  graphcost::ServeOptions serve;
  CLI::App* make_solution_command = add_make_solution_command(app, make_solution);
  CLI::App* score_command = add_score_command(app, score);
  CLI::App* leaderboard_command = add_leaderboard_command(app, leaderboard);
  CLI::App* baseline_command = add_baseline_command(app, baseline);
  CLI::App* competition_command = app.add_subcommand("competition", "Run a live competition kept in one database file");
  competition_command->require_subcommand(1);
  CLI::App* init_command = add_init_command(*competition_command, init);
  const TeamCommands team_commands = add_team_commands(*competition_command, team);
  CLI::App* submit_command = add_submit_command(*competition_command, submit);
  CLI::App* status_command = add_database_command(*competition_command, "status", "Settings, teams and the scoring queue", status_db);
  CLI::App* about_command = add_about_command(*competition_command, about);
  CLI::App* backup_command = add_backup_command(*competition_command, backup_db, backup_out);
  CLI::App* rescore_command =
      add_database_command(*competition_command, "rescore", "Score every submission again (after a scorer change)", rescore_db);
  CLI::App* export_command = add_export_command(*competition_command, export_options);
  CLI::App* serve_command = add_serve_command(app, serve);

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
    if (team_commands.add->parsed()) return graphcost::run_competition_team_add(team);
    if (team_commands.token->parsed()) return graphcost::run_competition_team_token(team);
    if (team_commands.revoke->parsed()) return graphcost::run_competition_team_revoke(team);
    if (submit_command->parsed()) return graphcost::run_competition_submit(submit);
    if (status_command->parsed()) return graphcost::run_competition_status(status_db);
    if (about_command->parsed()) return graphcost::run_competition_about(about);
    if (backup_command->parsed()) return graphcost::run_competition_backup(backup_db, backup_out);
    if (rescore_command->parsed()) return graphcost::run_competition_rescore(rescore_db);
    if (export_command->parsed()) return graphcost::run_competition_export(export_options);
    if (serve_command->parsed()) return graphcost::run_serve(serve);
  } catch (const std::exception& error) {  // exit 1 bad input, 3 internal error, 4 I/O (common/error_exit.h)
    return graphcost::report_error(error);
  }
  return 1;
}
