// Scorer: a validated submission against a solution -> per-graph, per-collection and overall
// scores on the Public and the Private board.
//   tile graph:   2 - min(y[first 5 predicted]) / min(y), y = runtime / normalizer (1 is perfect)
//   layout graph: Kendall tau-b between predicted position and runtime (1 is perfect)
// Collection score = mean over its scored graphs; overall = mean over the collections that have
// scored graphs. Graphs with fewer than 2 configs or constant runtimes carry no ranking signal and
// are skipped (counted, not averaged). Definitions and policy: docs/metrics.md.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scoring/solution.h"
#include "scoring/submission.h"

namespace graphcost {

struct GraphScore {
  std::string id;
  std::string collection;
  Usage usage = Usage::Public;
  bool skipped = false;  // n < 2 or constant runtimes
  double score = 0;      // tile score or Kendall tau-b
  // Diagnostics: top-K error (tile) / slowdown-at-K minus 1 (layout) for K = 1, 5, 10, and
  // ordered-pair accuracy.
  std::array<double, 3> top_k_error{};
  double pair_accuracy = 0;
};

struct BoardScore {                          // one usage (Public or Private)
  std::array<double, 5> collection_score{};  // NaN where the collection has no scored graph
  std::array<int, 5> graphs_scored{};
  std::array<int, 5> graphs_skipped{};
  double overall = 0;  // NaN if nothing was scored
};

struct ScoreReport {
  std::vector<GraphScore> graphs;  // solution order
  BoardScore public_board, private_board;
  const BoardScore& board(Usage usage) const { return usage == Usage::Public ? public_board : private_board; }
};

// `check` must be valid (check.valid()).
ScoreReport score_submission(const Solution& solution, const SubmissionCheck& check);

std::string format_score_report(const ScoreReport& report);
// {"public": {...}, "private": {...}, "graphs": [...]}; `include_private` false drops the private
// board and the private graphs (what participants may see before the competition ends).
nlohmann::json score_report_json(const ScoreReport& report, bool include_private = true);
// The two boards only ({"public": {...}, "private": {...}}, as in score_report_json) and back: what
// a leaderboard ranks by, kept beside each stored submission so a live board never re-scores.
// score_boards_from_json leaves `graphs` empty; it throws InputError for a malformed object.
nlohmann::json score_boards_json(const ScoreReport& report);
ScoreReport score_boards_from_json(const nlohmann::json& json);

}  // namespace graphcost
