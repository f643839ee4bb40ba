// RidgeRanker: the linear baseline a learned cost model has to beat (docs/experiments.md): ridge
// regression of standardised log runtime on one-hot config values, either per node (node x column
// x value; one program only) or as a histogram over nodes (column x value counts / nodes, which
// transfers across programs). Tile graphs use their 24 config features (signed log). The
// model-free baselines (random order, fewest layout changes) are in scoring/baseline_order.h.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "data/tpu_graph.h"
#include "train/trainer.h"

namespace graphcost {

enum class ConfigEncoding { PerNode, Histogram };

class RidgeRanker {
 public:
  explicit RidgeRanker(ConfigEncoding encoding) : encoding_(encoding) {}
  // Fits on the listed configs of `train` (targets: log runtime standardised per graph). The
  // penalty is chosen from a grid by error on a held-out fifth of the rows (seeded), then refit on
  // all. PerNode needs every graph to be the same program (same configurable node count).
  void fit(const std::vector<GraphConfigs>& train, uint64_t seed = 0);
  std::vector<float> predict(const TpuGraph& graph, const std::vector<int32_t>& configs) const;
  double penalty() const { return penalty_; }

 private:
  Eigen::MatrixXd features(const TpuGraph& graph, const std::vector<int32_t>& configs) const;

  ConfigEncoding encoding_;
  Eigen::VectorXd weights_;
  Eigen::RowVectorXd feature_mean_;
  double penalty_ = 0;
};

}  // namespace graphcost
