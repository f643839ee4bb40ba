#include "scoring/scorer.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "data/dataset_path.h"
#include "metrics/ranking_metrics.h"

namespace graphcost {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kTopK[3] = {1, 5, 10};

int collection_index(const std::string& collection) {
  for (int i = 0; i < 5; ++i) {
    if (collection == kCollections[i]) return i;
  }
  return -1;
}

void finish_board(BoardScore& board, const std::array<double, 5>& sums) {
  double overall_sum = 0;
  int collections = 0;
  for (int c = 0; c < 5; ++c) {
    board.collection_score[c] = board.graphs_scored[c] > 0 ? sums[c] / board.graphs_scored[c] : kNaN;
    if (board.graphs_scored[c] > 0) {
      overall_sum += board.collection_score[c];
      ++collections;
    }
  }
  board.overall = collections > 0 ? overall_sum / collections : kNaN;
}

nlohmann::json number_or_null(double value) { return std::isnan(value) ? nlohmann::json(nullptr) : nlohmann::json(value); }

nlohmann::json board_json(const BoardScore& board) {
  nlohmann::json collections = nlohmann::json::object();
  for (int c = 0; c < 5; ++c) {
    collections[kCollections[c]] = {{"score", number_or_null(board.collection_score[c])},
                                    {"graphs_scored", board.graphs_scored[c]},
                                    {"graphs_skipped", board.graphs_skipped[c]}};
  }
  return {{"overall", number_or_null(board.overall)}, {"collections", collections}};
}

BoardScore board_from_json(const nlohmann::json& json, const char* usage) {
  const nlohmann::json& board = json.at(usage);
  BoardScore result;
  auto number = [](const nlohmann::json& value) { return value.is_null() ? std::nan("") : value.get<double>(); };
  result.overall = number(board.at("overall"));
  for (int c = 0; c < 5; ++c) {
    const nlohmann::json& collection = board.at("collections").at(kCollections[c]);
    result.collection_score[c] = number(collection.at("score"));
    result.graphs_scored[c] = collection.at("graphs_scored").get<int>();
    result.graphs_skipped[c] = collection.at("graphs_skipped").get<int>();
  }
  return result;
}

}  // namespace

nlohmann::json score_boards_json(const ScoreReport& report) {
  return {{"public", board_json(report.public_board)}, {"private", board_json(report.private_board)}};
}

ScoreReport score_boards_from_json(const nlohmann::json& json) {
  ScoreReport report;
  try {
    report.public_board = board_from_json(json, "public");
    report.private_board = board_from_json(json, "private");
  } catch (const nlohmann::json::exception& error) {
    throw InputError("", "stored scores", "{\"public\": board, \"private\": board}", error.what());
  }
  return report;
}

ScoreReport score_submission(const Solution& solution, const SubmissionCheck& check) {
  ScoreReport report;
  std::array<double, 5> public_sums{}, private_sums{};
  for (size_t i = 0; i < solution.entries.size(); ++i) {
    const SolutionEntry& entry = solution.entries[i];
    const std::vector<int32_t>& order = check.predicted_order[i];
    GraphScore graph;
    graph.id = entry.id;
    graph.collection = entry.collection;
    graph.usage = entry.usage;
    const std::vector<double> y = entry.target_runtimes();
    const bool constant = std::all_of(y.begin(), y.end(), [&](double v) { return v == y.front(); });
    graph.skipped = y.size() < 2 || constant;
    if (!graph.skipped) {
      for (int k = 0; k < 3; ++k) graph.top_k_error[k] = top_k_error(y, order, kTopK[k]);
      if (entry.is_tile()) {
        graph.score = tile_score(y, order, 5);
        graph.pair_accuracy = kNaN;  // tile rows rank only their first configs
      } else {
        graph.score = layout_kendall_tau(y, order);
        graph.pair_accuracy = ordered_pair_accuracy(y, order);
      }
    }
    const int c = collection_index(entry.collection);
    check_invariant(c >= 0, "a solution entry of a collection the scorer knows (every Solution is built checked)");
    BoardScore& board = entry.usage == Usage::Public ? report.public_board : report.private_board;
    std::array<double, 5>& sums = entry.usage == Usage::Public ? public_sums : private_sums;
    if (graph.skipped) {
      ++board.graphs_skipped[c];
    } else {
      ++board.graphs_scored[c];
      sums[c] += graph.score;
    }
    report.graphs.push_back(std::move(graph));
  }
  finish_board(report.public_board, public_sums);
  finish_board(report.private_board, private_sums);
  return report;
}

std::string format_score_report(const ScoreReport& report) {
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line, "%-20s %10s %10s %16s %16s\n", "collection", "public", "private", "public scored", "private scored");
  out += line;
  auto score_text = [](double v) {
    char text[32];
    if (std::isnan(v)) std::snprintf(text, sizeof text, "-");
    else std::snprintf(text, sizeof text, "%.6f", v);
    return std::string(text);
  };
  for (int c = 0; c < 5; ++c) {
    const BoardScore& pub = report.public_board;
    const BoardScore& pri = report.private_board;
    const std::string pub_count =
        std::to_string(pub.graphs_scored[c]) + (pub.graphs_skipped[c] ? " (+" + std::to_string(pub.graphs_skipped[c]) + " skipped)" : "");
    const std::string pri_count =
        std::to_string(pri.graphs_scored[c]) + (pri.graphs_skipped[c] ? " (+" + std::to_string(pri.graphs_skipped[c]) + " skipped)" : "");
    std::snprintf(line, sizeof line, "%-20s %10s %10s %16s %16s\n", kCollections[c], score_text(pub.collection_score[c]).c_str(),
                  score_text(pri.collection_score[c]).c_str(), pub_count.c_str(), pri_count.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "%-20s %10s %10s\n", "overall", score_text(report.public_board.overall).c_str(),
                score_text(report.private_board.overall).c_str());
  out += line;
  return out;
}

nlohmann::json score_report_json(const ScoreReport& report, bool include_private) {
  nlohmann::json graphs = nlohmann::json::array();
  for (const GraphScore& g : report.graphs) {
    if (!include_private && g.usage == Usage::Private) continue;
    nlohmann::json item = {{"id", g.id}, {"collection", g.collection}, {"usage", usage_name(g.usage)}, {"skipped", g.skipped}};
    if (!g.skipped) {
      item["score"] = g.score;
      item["top1_error"] = g.top_k_error[0];
      item["top5_error"] = g.top_k_error[1];
      item["top10_error"] = g.top_k_error[2];
      item["pair_accuracy"] = number_or_null(g.pair_accuracy);
    }
    graphs.push_back(std::move(item));
  }
  nlohmann::json json = {{"public", board_json(report.public_board)}, {"graphs", graphs}};
  if (include_private) json["private"] = board_json(report.private_board);
  return json;
}

}  // namespace graphcost
