#include "sessions/session_ranking.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/internal_error.h"
#include "data/graph_summary.h"
#include "metrics/ranking_metrics.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

constexpr size_t kRankingChunk = 4;  // configs per ranking unit: a few ms on a 20k-node graph

}  // namespace

SessionRanking::SessionRanking(const TpuGraph& graph, CostModel& model) : graph_(graph), model_(model) {}

SessionRanking::~SessionRanking() = default;

double SessionRanking::progress() const {
  if (ranked_) return 1.0;
  return distinct_configs_.empty() ? 0.0 : static_cast<double>(ranked_distinct_) / static_cast<double>(distinct_configs_.size());
}

void SessionRanking::step() {
  const auto start = Clock::now();
  if (!started_) {  // preparing the graph and the base activations
    started_ = true;
    start_ = start;
    metrics_.labelled = !graph_.runtimes_hidden;
    prepared_ = std::make_unique<PreparedGraph>(model_.prepare(graph_));
    if (graph_.kind == GraphKind::Layout && !model_.couples_configs()) {
      inference_ = std::make_unique<LayoutInference>(model_, *prepared_);
      std::vector<int32_t> all(static_cast<size_t>(graph_.config_count));
      std::iota(all.begin(), all.end(), 0);
      DistinctConfigs groups = group_identical_configs(graph_, all);  // as CostModel::predict
      distinct_configs_ = std::move(groups.distinct);
      slot_of_config_ = std::move(groups.slot);
      distinct_costs_.assign(distinct_configs_.size(), 0.0f);
      compute_ms_ += ms_since(start);
    } else {
      costs_ = model_.predict(*prepared_);  // tile kernels are small: all at once
      compute_ms_ += ms_since(start);
      finish();
    }
    return;
  }
  const size_t end = std::min(distinct_configs_.size(), ranked_distinct_ + kRankingChunk);
  const std::vector<int32_t> chunk(distinct_configs_.begin() + static_cast<std::ptrdiff_t>(ranked_distinct_),
                                   distinct_configs_.begin() + static_cast<std::ptrdiff_t>(end));
  const std::vector<float> costs = inference_->predict(chunk, 1);
  std::copy(costs.begin(), costs.end(), distinct_costs_.begin() + static_cast<std::ptrdiff_t>(ranked_distinct_));
  ranked_distinct_ = end;
  compute_ms_ += ms_since(start);
  if (ranked_distinct_ == distinct_configs_.size()) {
    costs_.resize(static_cast<size_t>(graph_.config_count));
    for (size_t c = 0; c < costs_.size(); ++c) costs_[c] = distinct_costs_[static_cast<size_t>(slot_of_config_[c])];
    finish();
  }
}

void SessionRanking::finish() {
  order_ = order_by_cost(costs_);
  ranked_ = true;
  ms_ = ms_since(start_);
  if (!metrics_.labelled || costs_.size() < 2) return;
  const std::vector<double> targets = config_ranking_targets(graph_);
  const std::vector<int32_t> by_target = order_by_cost(targets);
  true_rank_.assign(targets.size(), 0);
  for (size_t r = 0; r < by_target.size(); ++r) true_rank_[static_cast<size_t>(by_target[r])] = static_cast<int32_t>(r);
  if (graph_.kind == GraphKind::Tile) {
    metrics_.tile_score = tile_score(targets, order_);
  } else {
    metrics_.kendall_tau = layout_kendall_tau(targets, order_);
  }
  metrics_.top5_slowdown = slowdown_at_k(targets, order_, 5);
  metrics_.measured_speedup = targets[0] / targets[static_cast<size_t>(order_.front())];
}

std::vector<std::pair<float, float>> SessionRanking::cost_runtime_points() const {
  std::vector<std::pair<float, float>> points;
  if (!ranked_ || !metrics_.labelled || costs_.empty()) return points;
  const auto [low_cost, high_cost] = std::minmax_element(costs_.begin(), costs_.end());
  std::vector<double> log_runtime(costs_.size());
  for (size_t c = 0; c < costs_.size(); ++c) log_runtime[c] = std::log(static_cast<double>(graph_.config_runtime_ns[c]));
  const auto [low_runtime, high_runtime] = std::minmax_element(log_runtime.begin(), log_runtime.end());
  for (size_t c = 0; c < costs_.size(); ++c) {
    points.emplace_back((costs_[c] - *low_cost) / std::max(1e-9f, *high_cost - *low_cost),
                        static_cast<float>((log_runtime[c] - *low_runtime) / std::max(1e-12, *high_runtime - *low_runtime)));
  }
  return points;
}

SpeedupEstimate SessionRanking::predicted_speedup() const {
  if (!ranked_ || order_.empty()) return SpeedupEstimate{false, 1, 1, 1, "not ranked yet"};
  return model_.calibration().estimate_speedup(costs_.front(), costs_[static_cast<size_t>(order_.front())], graph_.node_count);
}

SessionRanking::WhatIf SessionRanking::what_if(const std::vector<int8_t>& values) const {
  check_invariant(inference_ != nullptr && graph_.configurable_count() > 0,
                  "RankingSession::what_if on a graph without incremental layout inference");
  WhatIf result;
  result.cost = inference_->predict_values(values)[0];
  for (float c : costs_) result.rank += c < result.cost;
  return result;
}

}  // namespace graphcost
