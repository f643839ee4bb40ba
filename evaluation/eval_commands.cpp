#include "eval_commands.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "data/dataset_path.h"
#include "data/dataset_survey.h"
#include "data/tpu_graph.h"
#include "scoring/baseline_order.h"
#include "scoring/leaderboard.h"
#include "scoring/scorer.h"
#include "scoring/solution.h"
#include "scoring/submission.h"

namespace graphcost {

Solution load_solution(const SolutionSource& source) {
  std::error_code error;
  if (std::filesystem::is_directory(source.path, error)) {
    return solution_from_tree(source.path, source.split, source.seed, source.public_fraction);
  }
  return read_solution(source.path);
}

int run_make_solution(const MakeSolutionOptions& options) {
  const Solution solution =
      solution_from_tree(options.source.path, options.source.split, options.source.seed, options.source.public_fraction);
  write_solution(solution, options.out);
  size_t public_count = 0;
  for (const SolutionEntry& entry : solution.entries) public_count += entry.usage == Usage::Public;
  std::printf("wrote %s: %zu graphs of split '%s' (%zu Public, %zu Private)\n", options.out.c_str(), solution.entries.size(),
              options.source.split.c_str(), public_count, solution.entries.size() - public_count);
  return 0;
}

int run_score(const ScoreOptions& options) {
  const Solution solution = load_solution(options.solution);
  const SubmissionCheck check = check_submission_file(options.submission, solution);
  if (!check.valid()) {
    std::fprintf(stderr, "invalid submission: %zu error%s\n%s", check.error_count, check.error_count == 1 ? "" : "s",
                 check.format_errors(printable(options.submission)).c_str());
    if (!options.json_out.empty()) {
      nlohmann::json errors = nlohmann::json::array();
      for (const SubmissionError& e : check.errors) errors.push_back({{"line", e.line}, {"column", e.column}, {"message", e.message}});
      write_file_atomically(options.json_out,
                            nlohmann::json({{"status", "invalid"}, {"error_count", check.error_count}, {"errors", errors}})
                                    .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                                "\n");
    }
    return 2;
  }
  const ScoreReport report = score_submission(solution, check);
  std::cout << format_score_report(report);
  if (!options.json_out.empty()) {
    nlohmann::json json = score_report_json(report);
    json["status"] = "scored";
    write_file_atomically(options.json_out, json.dump(2) + "\n");
  }
  return 0;
}

int run_leaderboard(const LeaderboardCommandOptions& options) {
  const Solution solution = load_solution(options.solution);
  LeaderboardOptions board_options;
  board_options.submissions_dir = options.submissions_dir;
  board_options.manifest = options.manifest;
  board_options.final_board = options.final_board;
  board_options.daily_cap = options.daily_cap;
  const Leaderboard leaderboard = build_leaderboard(solution, board_options);
  for (const std::string& skipped : leaderboard.skipped) {
    std::fprintf(stderr, "warning: skipped %s\n", printable(skipped).c_str());
  }
  write_leaderboard(leaderboard, options.out);
  std::printf("%s board: %zu teams, %zu submissions -> %s/leaderboard.json\n", options.final_board ? "private" : "public",
              leaderboard.standings.size(), leaderboard.submissions.size(), options.out.c_str());
  for (const TeamStanding& team : leaderboard.standings) {
    std::printf("%4d  %-32s %s  (%d entries)\n", team.rank, printable(team.team).c_str(),
                std::isnan(team.score) ? "       -" : std::to_string(team.score).c_str(), team.entries);
  }
  return 0;
}

int run_baseline(const BaselineOptions& options) {
  std::vector<SubmissionRow> rows;
  const std::vector<SplitFile> files = find_split_files(options.data, options.split);
  std::vector<std::string> inputs;
  for (const SplitFile& file : files) inputs.push_back(file.path);
  check_output_path(options.out, inputs);
  for (const auto& [path, location] : files) {
    const TpuGraph graph = load_tpu_graph(path);
    rows.push_back({location.kaggle_id(), baseline_order(graph, options.strategy, options.seed)});
  }
  if (rows.empty()) {
    throw InputError(options.data, "split '" + options.split + "'", "TpuGraphs .npz files in the official tree", "none found");
  }
  write_submission_file(options.out, rows);
  std::printf("wrote %s: %zu rows, strategy '%s'\n", options.out.c_str(), rows.size(),
              name_of(baseline_strategy_names(), options.strategy).c_str());
  return 0;
}

}  // namespace graphcost
