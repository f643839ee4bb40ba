// SessionRanking: a RankingSession's ranking of its graph's configs by the model
// (app/ranking_session.h). It owns the prepared graph and, for layout graphs whose model ranks each
// config alone, the LayoutInference (made at the ranking's start; explanations, what-if and search
// use it), the predicted cost of every config (identical configs predicted once, 4 distinct ones a
// unit; tile kernels and attention models all at once, as `graphcost predict`), the order, and on
// labelled files the true ranks and the metrics of metrics/ranking_metrics.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "data/tpu_graph.h"
#include "model/cost_model.h"
#include "model/layout_inference.h"

namespace graphcost {

// The ranking against the measured runtimes (labelled files only).
struct RankingMetrics {
  bool labelled = false;
  double kendall_tau = 0;       // layout
  double tile_score = 0;        // tile
  double top5_slowdown = 0;     // best of the top 5 over the true best
  double measured_speedup = 0;  // config 0's runtime over the model's pick's
};

class SessionRanking {
 public:
  // `graph` and `model` (of the graph's kind) must outlive this. Nothing runs before step().
  SessionRanking(const TpuGraph& graph, CostModel& model);
  ~SessionRanking();
  SessionRanking(const SessionRanking&) = delete;
  SessionRanking& operator=(const SessionRanking&) = delete;

  void step();  // one unit: the preparation, then 4 distinct configs (timed)
  bool done() const { return ranked_; }
  double progress() const;                                              // 0..1
  const std::vector<float>& costs() const { return costs_; }            // per config
  const std::vector<int32_t>& order() const { return order_; }          // predicted fastest first, stable
  const std::vector<int32_t>& true_rank() const { return true_rank_; }  // per config, labelled files
  const RankingMetrics& metrics() const { return metrics_; }
  double ms() const { return ms_; }                  // wall time from its start to its end
  double compute_ms() const { return compute_ms_; }  // of which in the model
  // The incremental inference of a layout graph ranked config by config, from the ranking's start
  // on; null for tile kernels, attention models, and before the ranking starts.
  const LayoutInference* inference() const { return inference_.get(); }

  // Labelled files: per config (predicted cost, log runtime), each scaled to [0, 1] over the configs.
  std::vector<std::pair<float, float>> cost_runtime_points() const;
  // The model's pick over config 0, from the model's calibration (unsupported, with why, where it
  // cannot give one: RuntimeCalibration::estimate_speedup).
  SpeedupEstimate predicted_speedup() const;
  struct WhatIf {
    float cost = 0;
    int rank = 0;  // listed configs predicted cheaper
  };
  // A config given as its values (configurable x 18) priced by the inference, and its rank among
  // the configs ranked so far. Only with an inference and something configurable.
  WhatIf what_if(const std::vector<int8_t>& values) const;

 private:
  void finish();

  const TpuGraph& graph_;
  CostModel& model_;
  std::unique_ptr<PreparedGraph> prepared_;
  std::unique_ptr<LayoutInference> inference_;
  bool started_ = false, ranked_ = false;
  std::vector<int32_t> distinct_configs_, slot_of_config_;
  std::vector<float> distinct_costs_;
  size_t ranked_distinct_ = 0;
  std::vector<float> costs_;
  std::vector<int32_t> order_, true_rank_;
  RankingMetrics metrics_;
  std::chrono::steady_clock::time_point start_;
  double ms_ = 0, compute_ms_ = 0;
};

}  // namespace graphcost
