#include "train/ridge_ranker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "common/input_error.h"
#include "data/node_features.h"

namespace graphcost {
namespace {

// A node's row category enters at half a value's scale, so ridge's penalty on its weight is four
// times a value's: it explains by values what they can and by rows the rest. At 1 the rows took
// over on the random collection (unet_3d random at 30 measured: 0.69 against the values' 0.74);
// at 0.5 it keeps 0.74 there and the rows' gain on unet3d (0.61 against 0.17 at 30), and 0.25
// does the same (experiments/ridge_curve.py, 10 draws).
constexpr double kRowColumnScale = 0.5;

// Ridge weights for centred X and y: primal (d x d system) or dual (n x n), whichever is smaller.
Eigen::VectorXd solve_ridge(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double penalty) {
  if (x.rows() < x.cols()) {
    Eigen::MatrixXd gram = x * x.transpose();
    gram.diagonal().array() += penalty;
    return x.transpose() * gram.ldlt().solve(y);
  }
  Eigen::MatrixXd gram = x.transpose() * x;
  gram.diagonal().array() += penalty;
  return gram.ldlt().solve(x.transpose() * y);
}

// The grid penalty with the least leave-one-out squared error of ridge on centred X and y, in closed
// form: with X X^T = U S U^T (dual) or X = (X V) V^T and X^T X = V S V^T (primal), the fit at
// penalty p is Q diag(s / (s + p)) Q^T y with Q's columns U or X V / sqrt(s), and row i's
// leave-one-out residual is its residual over 1 - H_ii. One eigendecomposition serves the grid.
double leave_one_out_penalty(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  Eigen::MatrixXd q;
  Eigen::VectorXd s;
  if (x.rows() <= x.cols()) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(x * x.transpose());
    q = eigen.eigenvectors();
    s = eigen.eigenvalues().cwiseMax(0.0);
  } else {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(x.transpose() * x);
    s = eigen.eigenvalues().cwiseMax(0.0);
    q = x * eigen.eigenvectors();
    for (Eigen::Index j = 0; j < s.size(); ++j) q.col(j) *= s(j) > 0 ? 1.0 / std::sqrt(s(j)) : 0.0;
  }
  const Eigen::VectorXd projected = q.transpose() * y;
  const Eigen::MatrixXd q_squared = q.array().square().matrix();
  double best_penalty = 1.0, best_error = std::numeric_limits<double>::infinity();
  for (double penalty : {1e-6, 1e-4, 1e-3, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0}) {
    const Eigen::VectorXd shrink = s.array() / (s.array() + penalty);
    const Eigen::VectorXd residual = y - q * shrink.cwiseProduct(projected);
    const Eigen::VectorXd leverage = q_squared * shrink;
    const double error = (residual.array() / (1.0 - leverage.array()).cwiseMax(1e-9)).square().mean();
    if (error < best_error) best_error = error, best_penalty = penalty;
  }
  return best_penalty;
}

}  // namespace

Eigen::Index RidgeRanker::feature_count(const TpuGraph& graph) const {
  if (graph.kind == GraphKind::Tile) return kTileConfigFeatureCount;
  const Eigen::Index values = static_cast<Eigen::Index>(kLayoutConfigFeatureCount) * kLayoutValueCount;
  if (encoding_ == ConfigEncoding::Histogram) return values;
  const bool rows = static_cast<size_t>(graph.configurable_count()) == row_columns_.size();
  return graph.configurable_count() * values + (rows ? row_column_count_ : 0);
}

template <class Add>
void RidgeRanker::for_each_feature(const TpuGraph& graph, int32_t config, Add add) const {
  if (graph.kind == GraphKind::Tile) {
    for (int k = 0; k < kTileConfigFeatureCount; ++k) {
      const double v = graph.tile_config_features[static_cast<size_t>(config) * kTileConfigFeatureCount + static_cast<size_t>(k)];
      add(k, std::copysign(std::log1p(std::abs(v)), v));
    }
    return;
  }
  const int32_t nodes = graph.configurable_count();
  const Eigen::Index values = static_cast<Eigen::Index>(kLayoutConfigFeatureCount) * kLayoutValueCount;
  const bool rows = encoding_ == ConfigEncoding::PerNode && static_cast<size_t>(nodes) == row_columns_.size();
  for (int32_t slot = 0; slot < nodes; ++slot) {
    for (int k = 0; k < kLayoutConfigFeatureCount; ++k) {
      const Eigen::Index column = static_cast<Eigen::Index>(k) * kLayoutValueCount + graph.layout_value(config, slot, k) + 1;
      if (encoding_ == ConfigEncoding::PerNode) {
        add(slot * values + column, 1.0);
      } else {
        add(column, 1.0 / std::max(1, nodes));
      }
    }
    if (!rows) continue;
    const auto& seen = row_columns_[static_cast<size_t>(slot)];
    const auto found = seen.find(layout_row(graph, config, slot));
    if (found != seen.end()) add(nodes * values + found->second, kRowColumnScale);  // a row the fit never saw: no column
  }
}

Eigen::MatrixXd RidgeRanker::features(const TpuGraph& graph, const std::vector<int32_t>& configs) const {
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(configs.size()), feature_count(graph));
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    for_each_feature(graph, configs[static_cast<size_t>(i)], [&](Eigen::Index column, double value) { x(i, column) += value; });
  }
  return x;
}

RidgeRanker::LayoutRow RidgeRanker::layout_row(const TpuGraph& graph, int32_t config, int32_t slot) const {
  LayoutRow row{};
  for (int k = 0; k < kLayoutConfigFeatureCount; ++k) row[static_cast<size_t>(k)] = graph.layout_value(config, slot, k);
  return row;
}

void RidgeRanker::index_rows(const std::vector<std::pair<const TpuGraph*, std::vector<int32_t>>>& train) {
  row_columns_.clear();
  row_column_count_ = 0;
  if (encoding_ != ConfigEncoding::PerNode) return;
  for (const auto& [graph, configs] : train) {
    if (graph->kind != GraphKind::Layout) continue;
    const int32_t nodes = graph->configurable_count();
    if (row_columns_.empty()) row_columns_.resize(static_cast<size_t>(nodes));
    if (static_cast<size_t>(nodes) != row_columns_.size()) return;  // fit reports the mismatch
    for (const int32_t config : configs) {
      for (int32_t slot = 0; slot < nodes; ++slot) row_columns_[static_cast<size_t>(slot)].emplace(layout_row(*graph, config, slot), 0);
    }
  }
  for (auto& seen : row_columns_) {
    for (auto& [row, column] : seen) column = row_column_count_++;
  }
}

void RidgeRanker::fit(const std::vector<GraphConfigs>& train) {
  std::vector<std::pair<const TpuGraph*, std::vector<int32_t>>> listed;
  std::vector<std::vector<double>> runtimes;
  for (const GraphConfigs& item : train) {
    if (item.graph->runtimes_hidden) continue;
    listed.emplace_back(item.graph, listed_or_all_configs(*item.graph, item.configs));
    std::vector<double>& y = runtimes.emplace_back();
    for (const int32_t c : listed.back().second) y.push_back(config_ranking_target(*item.graph, c));
  }
  fit_listed(listed, runtimes);
}

void RidgeRanker::fit(const TpuGraph& graph, const std::vector<int32_t>& configs, const std::vector<double>& runtimes) {
  fit_listed({{&graph, configs}}, {runtimes});
}

void RidgeRanker::fit_listed(const std::vector<std::pair<const TpuGraph*, std::vector<int32_t>>>& listed,
                             const std::vector<std::vector<double>>& runtimes) {
  index_rows(listed);
  std::vector<Eigen::MatrixXd> blocks;
  std::vector<double> targets;
  Eigen::Index rows = 0, columns = -1;
  for (size_t item = 0; item < listed.size(); ++item) {
    const TpuGraph& graph = *listed[item].first;
    const std::vector<int32_t>& configs = listed[item].second;
    Eigen::MatrixXd x = features(graph, configs);
    if (columns >= 0 && x.cols() != columns)
      throw InputError(graph.source, "configurable nodes",
                       "the same count as the other training graphs (per-node one-hot features need graphs of one program)",
                       std::to_string(graph.configurable_count()));
    columns = x.cols();
    std::vector<double> y;
    for (const double runtime : runtimes[item]) y.push_back(std::log(std::max(runtime, 1e-300)));
    const double mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
    double variance = 0;
    for (double v : y) variance += (v - mean) * (v - mean) / static_cast<double>(y.size());
    const double scale = variance > 0 ? 1.0 / std::sqrt(variance) : 0.0;
    for (double v : y) targets.push_back((v - mean) * scale);
    rows += x.rows();
    blocks.push_back(std::move(x));
  }
  if (rows < 2) throw InputError("", "training graphs", "at least 2 labelled configs to fit the ridge ranker", std::to_string(rows));
  Eigen::MatrixXd x(rows, columns);
  Eigen::Index at = 0;
  for (const Eigen::MatrixXd& block : blocks) {
    x.middleRows(at, block.rows()) = block;
    at += block.rows();
  }
  const Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(targets.data(), rows);
  feature_mean_ = x.colwise().mean();
  x.rowwise() -= feature_mean_;

  penalty_ = leave_one_out_penalty(x, y.array() - y.mean());
  weights_ = solve_ridge(x, y.array() - y.mean(), penalty_);
}

std::vector<float> RidgeRanker::predict(const TpuGraph& graph, const std::vector<int32_t>& configs) const {
  if (feature_count(graph) != weights_.size()) {
    throw InputError(graph.source, "configurable nodes", "the fitted program's (" + std::to_string(weights_.size()) + " one-hot columns)",
                     std::to_string(feature_count(graph)) + " columns");
  }
  // Row by row over the nonzero features: a program's per-node one-hots for thousands of candidates
  // would not fit in memory as one dense matrix.
  const double offset = feature_mean_.dot(weights_);
  std::vector<float> costs(configs.size());
  for (size_t i = 0; i < costs.size(); ++i) {
    double sum = -offset;
    for_each_feature(graph, configs[i], [&](Eigen::Index column, double value) { sum += value * weights_(column); });
    costs[i] = static_cast<float>(sum);
  }
  return costs;
}

nlohmann::json RidgeRanker::to_json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t slot = 0; slot < row_columns_.size(); ++slot) {
    for (const auto& [row, column] : row_columns_[slot]) rows.push_back({slot, std::vector<int>(row.begin(), row.end()), column});
  }
  return {{"encoding", encoding_ == ConfigEncoding::PerNode ? "per-node" : "histogram"},
          {"penalty", penalty_},
          {"nodes", row_columns_.size()},
          {"weights", std::vector<double>(weights_.data(), weights_.data() + weights_.size())},
          {"feature_mean", std::vector<double>(feature_mean_.data(), feature_mean_.data() + feature_mean_.size())},
          {"rows", rows}};
}

RidgeRanker RidgeRanker::from_json(const nlohmann::json& json, const std::string& where) {
  const auto field = [&](const char* name) -> const nlohmann::json& {
    if (!json.is_object() || !json.contains(name)) throw InputError(where, std::string("ridge.") + name, "present", "missing");
    return json.at(name);
  };
  try {
    const std::string encoding = field("encoding").get<std::string>();
    if (encoding != "per-node" && encoding != "histogram") throw InputError(where, "ridge.encoding", "per-node or histogram", encoding);
    RidgeRanker ridge(encoding == "per-node" ? ConfigEncoding::PerNode : ConfigEncoding::Histogram);
    ridge.penalty_ = field("penalty").get<double>();
    const std::vector<double> weights = field("weights").get<std::vector<double>>();
    const std::vector<double> mean = field("feature_mean").get<std::vector<double>>();
    if (weights.size() != mean.size()) {
      throw InputError(where, "ridge.feature_mean", std::to_string(weights.size()) + " values (one per weight)",
                       std::to_string(mean.size()));
    }
    ridge.weights_ = Eigen::Map<const Eigen::VectorXd>(weights.data(), static_cast<Eigen::Index>(weights.size()));
    ridge.feature_mean_ = Eigen::Map<const Eigen::RowVectorXd>(mean.data(), static_cast<Eigen::Index>(mean.size()));
    const size_t nodes = field("nodes").get<size_t>();
    if (nodes > 1000000) throw InputError(where, "ridge.nodes", "at most 1000000", std::to_string(nodes));
    ridge.row_columns_.resize(nodes);
    for (const nlohmann::json& entry : field("rows")) {
      const size_t slot = entry.at(0).get<size_t>();
      const std::vector<int> values = entry.at(1).get<std::vector<int>>();
      const Eigen::Index column = entry.at(2).get<Eigen::Index>();
      if (slot >= nodes || values.size() != kLayoutConfigFeatureCount || column < 0 ||
          column >= static_cast<Eigen::Index>(weights.size())) {
        throw InputError(where, "ridge.rows", "[slot < nodes, 18 values, a weight's column]", entry.dump());
      }
      LayoutRow row{};
      for (size_t k = 0; k < row.size(); ++k) row[k] = static_cast<int8_t>(values[k]);
      ridge.row_columns_[slot].emplace(row, column);
      ++ridge.row_column_count_;
    }
    return ridge;
  } catch (const nlohmann::json::exception& error) {
    throw InputError(where, "ridge", "numbers and lists as graphcost writes them", error.what());
  }
}

}  // namespace graphcost
