#include "train/ridge_ranker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>

#include "common/input_error.h"
#include "data/node_features.h"

namespace graphcost {
namespace {

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

}  // namespace

Eigen::MatrixXd RidgeRanker::features(const TpuGraph& graph, const std::vector<int32_t>& configs) const {
  const Eigen::Index n = static_cast<Eigen::Index>(configs.size());
  if (graph.kind == GraphKind::Tile) {
    Eigen::MatrixXd x(n, kTileConfigFeatureCount);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (int k = 0; k < kTileConfigFeatureCount; ++k) {
        const double v = graph.tile_config_features[static_cast<size_t>(configs[static_cast<size_t>(i)]) * kTileConfigFeatureCount +
                                                    static_cast<size_t>(k)];
        x(i, k) = std::copysign(std::log1p(std::abs(v)), v);
      }
    }
    return x;
  }
  const int32_t nodes = graph.configurable_count();
  const Eigen::Index columns = encoding_ == ConfigEncoding::PerNode
                                   ? static_cast<Eigen::Index>(nodes) * kLayoutConfigFeatureCount * kLayoutValueCount
                                   : kLayoutConfigFeatureCount * kLayoutValueCount;
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, columns);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (int32_t slot = 0; slot < nodes; ++slot) {
      for (int k = 0; k < kLayoutConfigFeatureCount; ++k) {
        const int value = graph.layout_value(configs[static_cast<size_t>(i)], slot, k) + 1;
        const Eigen::Index column = static_cast<Eigen::Index>(k) * kLayoutValueCount + value;
        if (encoding_ == ConfigEncoding::PerNode) {
          x(i, static_cast<Eigen::Index>(slot) * kLayoutConfigFeatureCount * kLayoutValueCount + column) = 1;
        } else {
          x(i, column) += 1.0 / std::max(1, nodes);
        }
      }
    }
  }
  return x;
}

void RidgeRanker::fit(const std::vector<GraphConfigs>& train, uint64_t seed) {
  std::vector<Eigen::MatrixXd> blocks;
  std::vector<double> targets;
  Eigen::Index rows = 0, columns = -1;
  for (const GraphConfigs& item : train) {
    const TpuGraph& graph = *item.graph;
    if (graph.runtimes_hidden) continue;
    const std::vector<int32_t> configs = listed_or_all_configs(graph, item.configs);
    Eigen::MatrixXd x = features(graph, configs);
    if (columns >= 0 && x.cols() != columns)
      throw InputError(graph.source, "configurable nodes",
                       "the same count as the other training graphs (per-node one-hot features need graphs of one program)",
                       std::to_string(graph.configurable_count()));
    columns = x.cols();
    std::vector<double> y;
    for (int32_t c : configs) {
      y.push_back(std::log(std::max(config_ranking_target(graph, c), 1e-9)));
    }
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

  // Penalty: the grid value with the least squared error on a held-out fifth of the rows.
  std::vector<Eigen::Index> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed + 101));
  const Eigen::Index held = std::max<Eigen::Index>(1, rows / 5);
  Eigen::MatrixXd fit_x(rows - held, columns), held_x(held, columns);
  Eigen::VectorXd fit_y(rows - held), held_y(held);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const Eigen::Index r = order[static_cast<size_t>(i)];
    if (i < held) {
      held_x.row(i) = x.row(r);
      held_y(i) = y(r);
    } else {
      fit_x.row(i - held) = x.row(r);
      fit_y(i - held) = y(r);
    }
  }
  double best_error = std::numeric_limits<double>::infinity();
  for (double penalty : {0.01, 0.1, 1.0, 10.0, 100.0, 1000.0}) {
    const double fit_mean = fit_y.mean();
    const Eigen::VectorXd w = solve_ridge(fit_x, fit_y.array() - fit_mean, penalty);
    const double error = ((held_x * w).array() + fit_mean - held_y.array()).square().mean();
    if (error < best_error) best_error = error, penalty_ = penalty;
  }
  weights_ = solve_ridge(x, y.array() - y.mean(), penalty_);
}

std::vector<float> RidgeRanker::predict(const TpuGraph& graph, const std::vector<int32_t>& configs) const {
  Eigen::MatrixXd x = features(graph, configs);
  if (x.cols() != weights_.size()) {
    throw InputError(graph.source, "configurable nodes", "the fitted program's (" + std::to_string(weights_.size()) + " one-hot columns)",
                     std::to_string(x.cols()) + " columns");
  }
  x.rowwise() -= feature_mean_;
  const Eigen::VectorXd prediction = x * weights_;
  std::vector<float> costs(configs.size());
  for (size_t i = 0; i < costs.size(); ++i) costs[i] = static_cast<float>(prediction(static_cast<Eigen::Index>(i)));
  return costs;
}

}  // namespace graphcost
