// Why the model ranks a layout config where it does, and what it would prefer: explanations and a
// model-guided search built on LayoutInference::predict_values. All work is split into steps of a
// few predictions so a single-threaded caller (the browser app, between frames) stays responsive;
// a native caller may simply step until done.
//
//   occlusion:  for each configurable node where config c differs from the base config (each
//               node's most common values), predict c with that node set back to the base; the
//               node's contribution is cost(c) - cost(c with the node reset).
//   compare:    for configs a and b, for each node where they differ, predict a with that node
//               taken from b; the node accounts for cost(a with it from b) - cost(a) of the
//               predicted difference cost(b) - cost(a) (interactions make the sum approximate).
//   greedy search: from a start config, each round tries every node with each value row seen for
//               it among the file's configs, keeps the single best change, and stops when no
//               change lowers the predicted cost (or after max_rounds).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "model/layout_inference.h"

namespace graphcost {

// The 18 x configurable values of config `config` of a layout graph, row-major by slot.
std::vector<int8_t> layout_config_values(const TpuGraph& graph, int32_t config);

// Predicts a list of configs given by value, a few per step().
class ValuePredictions {
 public:
  ValuePredictions(const LayoutInference& inference, std::vector<int8_t> values, size_t width);
  // Predicts up to `max_configs` more; returns true when all are done.
  bool step(size_t max_configs);
  bool done() const { return next_ == costs_.size(); }
  double progress() const { return costs_.empty() ? 1.0 : static_cast<double>(next_) / static_cast<double>(costs_.size()); }
  const std::vector<float>& costs() const { return costs_; }
  size_t size() const { return costs_.size(); }

 private:
  const LayoutInference& inference_;
  std::vector<int8_t> values_;
  size_t width_;
  size_t next_ = 0;
  std::vector<float> costs_;
};

// Per-node explanation of one config (occlusion) or of the gap between two (compare).
struct NodeContributions {
  std::vector<int32_t> slots;       // configurable slots explained (where the configs differ)
  std::vector<float> contribution;  // per slot, in cost units (positive: makes it slower)
  float reference_cost = 0;         // cost of the explained config (a, for compare)
  float other_cost = 0;             // cost of the base config (occlusion) or of b (compare)
};

class ContributionJob {
 public:
  // Occlusion of `config` against the base config.
  ContributionJob(const LayoutInference& inference, const std::vector<int8_t>& config);
  // Compare: `a` against `b`.
  ContributionJob(const LayoutInference& inference, const std::vector<int8_t>& a, const std::vector<int8_t>& b);
  bool step(size_t max_configs);
  double progress() const { return predictions_.progress(); }
  bool done() const { return predictions_.done(); }
  // Valid once done().
  NodeContributions result() const;

 private:
  bool compare_;
  std::vector<int32_t> slots_;
  ValuePredictions predictions_;  // [reference, other, one variant per slot]
};

class GreedyLayoutSearch {
 public:
  // `start`: the config to improve (e.g. the best listed one). Candidate rows per node are the
  // distinct rows the graph's configs give it (at most `max_candidates` each, most common first).
  GreedyLayoutSearch(const LayoutInference& inference, const TpuGraph& graph, std::vector<int8_t> start, int max_rounds = 8,
                     int max_candidates = 6);
  bool step(size_t max_configs);
  bool done() const { return finished_; }
  int rounds() const { return rounds_; }
  double round_progress() const { return round_ ? round_->progress() : 1.0; }
  float start_cost() const { return start_cost_; }
  float best_cost() const { return best_cost_; }
  const std::vector<int8_t>& best() const { return best_; }
  int changed_nodes() const { return changed_nodes_; }  // nodes whose values differ from start

 private:
  void begin_round();
  const LayoutInference& inference_;
  size_t width_;
  std::vector<std::vector<std::vector<int8_t>>> candidates_;  // per slot: candidate rows
  std::vector<int8_t> start_, best_;
  std::vector<std::pair<int32_t, int32_t>> round_changes_;  // (slot, candidate) per variant
  std::unique_ptr<ValuePredictions> round_;
  float start_cost_ = 0, best_cost_ = 0;
  int max_rounds_, rounds_ = 0, changed_nodes_ = 0;
  bool finished_ = false;
};

}  // namespace graphcost
