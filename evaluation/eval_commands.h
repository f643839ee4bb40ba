// The subcommands of graphcost-eval. Each returns the process exit code:
// 0 done / scored, 2 invalid submission (score); errors are thrown and become exit 1 (bad
// solution or data), 3 (internal error) or 4 (I/O) in main (common/error_exit.h).
#pragma once

#include <cstdint>
#include <string>

#include "scoring/baseline_order.h"
#include "scoring/solution.h"

namespace graphcost {

struct SolutionSource {  // --solution: a solution CSV, or an npz tree scored on a labelled split
  std::string path;
  std::string split = "valid";
  uint64_t seed = 0;
  double public_fraction = 0.5;
};

// A solution CSV, or the labelled split of an npz tree (as make-solution builds it).
Solution load_solution(const SolutionSource& source);

struct MakeSolutionOptions {
  SolutionSource source;  // source.path = --data
  std::string out;
};
int run_make_solution(const MakeSolutionOptions& options);

struct ScoreOptions {
  SolutionSource solution;
  std::string submission;
  std::string json_out;
};
int run_score(const ScoreOptions& options);

struct LeaderboardCommandOptions {
  SolutionSource solution;
  std::string submissions_dir, manifest, out;
  bool final_board = false;
  int daily_cap = 5;
};
int run_leaderboard(const LeaderboardCommandOptions& options);

struct BaselineOptions {
  std::string data, split = "test", out;
  BaselineStrategy strategy = BaselineStrategy::First;
  uint64_t seed = 0;
};
int run_baseline(const BaselineOptions& options);

}  // namespace graphcost
