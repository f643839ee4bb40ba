// RidgeRanker: the linear baseline a learned cost model has to beat (docs/experiments.md): ridge
// regression of standardised log runtime on one-hot config values, either per node (one program
// only: node x column x value, and beside them each node's whole 18-value row as one category
// among the rows the fit saw) or as a histogram over nodes (column x value counts / nodes, which
// transfers across programs). Tile graphs use their 24 config features (signed log). The
// model-free baselines (random order, fewest layout changes) are in scoring/baseline_order.h.
//
// Why both per-node blocks (docs/tuning.md, "The ridge half"): in a compiler's own search a
// node's 18 values change together, and its row as one category ranks unet3d at 0.6 from 30
// random measurements where the values alone give 0.2; on a random collection the values alone
// do best and the rows cost little. The penalty is chosen by leave-one-out error (closed form).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"
#include "train/trainer.h"

namespace graphcost {

enum class ConfigEncoding { PerNode, Histogram };

class RidgeRanker {
 public:
  explicit RidgeRanker(ConfigEncoding encoding) : encoding_(encoding) {}
  // Fits on the listed configs of `train` (targets: log runtime standardised per graph). The
  // penalty is the grid value with the least leave-one-out squared error. PerNode needs every
  // graph to be the same program (same configurable node count).
  void fit(const std::vector<GraphConfigs>& train);
  // One program's listed configs and their runtimes (any unit; `graph`'s own runtimes are not read).
  void fit(const TpuGraph& graph, const std::vector<int32_t>& configs, const std::vector<double>& runtimes);
  std::vector<float> predict(const TpuGraph& graph, const std::vector<int32_t>& configs) const;
  double penalty() const { return penalty_; }
  // The fitted ranker as JSON and back (InputError naming `where` and the field on a bad one).
  nlohmann::json to_json() const;
  static RidgeRanker from_json(const nlohmann::json& json, const std::string& where);

 private:
  Eigen::Index feature_count(const TpuGraph& graph) const;
  // Calls add(column, value) for each nonzero feature of `config`.
  template <class Add>
  void for_each_feature(const TpuGraph& graph, int32_t config, Add add) const;
  Eigen::MatrixXd features(const TpuGraph& graph, const std::vector<int32_t>& configs) const;  // dense, for the fit

  using LayoutRow = std::array<int8_t, kLayoutConfigFeatureCount>;
  void fit_listed(const std::vector<std::pair<const TpuGraph*, std::vector<int32_t>>>& listed,
                  const std::vector<std::vector<double>>& runtimes);
  void index_rows(const std::vector<std::pair<const TpuGraph*, std::vector<int32_t>>>& train);
  LayoutRow layout_row(const TpuGraph& graph, int32_t config, int32_t slot) const;

  ConfigEncoding encoding_;
  // PerNode: for each configurable node, its rows the fit saw -> their column after the values'.
  std::vector<std::map<LayoutRow, Eigen::Index>> row_columns_;
  Eigen::Index row_column_count_ = 0;
  Eigen::VectorXd weights_;
  Eigen::RowVectorXd feature_mean_;
  double penalty_ = 0;
};

}  // namespace graphcost
