#include "learners/xgboost_learner.h"

#include <algorithm>
#include <cmath>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "learners/learner_file.h"

namespace graphcost {

float config_value_at(const TpuGraph& graph, int32_t config, const XgboostLearner::Column& column) {
  if (column.first < 0)
    return graph.tile_config_features[static_cast<size_t>(config) * kTileConfigFeatureCount + static_cast<size_t>(column.second)];
  return graph.layout_value(config, column.first, column.second);
}

// The others tell configs nothing apart.
std::vector<XgboostLearner::Column> varying_columns(const TpuGraph& graph) {
  std::vector<XgboostLearner::Column> all;
  if (graph.kind == GraphKind::Tile) {
    for (int32_t k = 0; k < kTileConfigFeatureCount; ++k) all.emplace_back(-1, k);
  } else {
    for (int32_t slot = 0; slot < graph.configurable_count(); ++slot) {
      for (int32_t k = 0; k < kLayoutConfigFeatureCount; ++k) all.emplace_back(slot, k);
    }
  }
  std::vector<XgboostLearner::Column> varying;
  for (const auto& column : all) {
    const float first = graph.config_count > 0 ? config_value_at(graph, 0, column) : 0.0f;
    for (int32_t c = 1; c < graph.config_count; ++c) {
      if (config_value_at(graph, c, column) != first) {
        varying.push_back(column);
        break;
      }
    }
  }
  return varying;
}

XgboostLearner::XgboostLearner(const TpuGraph& graph, BoostedTreesOptions options)
    : XgboostLearner(graph, options, std::make_shared<const std::vector<Column>>(varying_columns(graph))) {}

XgboostLearner::XgboostLearner(const TpuGraph& graph, BoostedTreesOptions options, std::shared_ptr<const std::vector<Column>> columns)
    : graph_(graph), options_(options), columns_(std::move(columns)) {}

std::unique_ptr<Learner> XgboostLearner::fresh() const { return std::unique_ptr<Learner>(new XgboostLearner(graph_, options_, columns_)); }

std::vector<float> XgboostLearner::features(const int32_t* configs, size_t count) const {
  // A program whose configs are all the same has no varying column: one constant column, so the
  // trees still fit (to the mean).
  const size_t width = std::max<size_t>(1, columns_->size());
  std::vector<float> x(count * width, 0.0f);
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < columns_->size(); ++j) x[i * width + j] = config_value_at(graph_, configs[i], (*columns_)[j]);
  }
  return x;
}

void XgboostLearner::fit(const Observations& observed) {
  check_invariant(observed.configs.size() == observed.seconds.size() && !observed.configs.empty(), "XgboostLearner: a runtime per config");
  std::vector<float> y;
  y.reserve(observed.seconds.size());
  for (const double seconds : observed.seconds) y.push_back(static_cast<float>(std::log(std::max(seconds, 1e-12) * 1e9)));
  const std::vector<float> x = features(observed.configs.data(), observed.configs.size());
  trees_.fit(x, observed.configs.size(), std::max<size_t>(1, columns_->size()), y, options_);
}

std::vector<float> XgboostLearner::predict(const std::vector<int32_t>& configs) const {
  // In chunks: a big program's candidates x columns need not be in memory at once.
  constexpr size_t kChunk = 1024;
  std::vector<float> costs;
  costs.reserve(configs.size());
  for (size_t at = 0; at < configs.size(); at += kChunk) {
    const size_t count = std::min(kChunk, configs.size() - at);
    const std::vector<float> chunk = trees_.predict(features(configs.data() + at, count), count);
    costs.insert(costs.end(), chunk.begin(), chunk.end());
  }
  return costs;
}

void XgboostLearner::save(const std::string& path, const std::vector<std::string>& inputs) const {
  check_invariant(fitted(), "XgboostLearner::save before fit");
  nlohmann::json json = learner_file_header(LearnerKind::Xgboost, graph_);
  json["columns"] = *columns_;
  json["trees"] = nlohmann::json::parse(trees_.save_json());
  write_learner_file(path, json, inputs);
}

std::unique_ptr<XgboostLearner> XgboostLearner::from_json(const TpuGraph& graph, const nlohmann::json& json, const std::string& where) {
  std::vector<Column> columns;
  try {
    columns = json.at("columns").get<std::vector<Column>>();
  } catch (const nlohmann::json::exception& error) {
    throw InputError(where, "columns", "a list of [node slot, column] pairs", error.what());
  }
  for (const Column& column : columns) {
    const bool fits = column.first < 0 ? graph.kind == GraphKind::Tile && column.second >= 0 && column.second < kTileConfigFeatureCount
                                       : graph.kind == GraphKind::Layout && column.first < graph.configurable_count() &&
                                             column.second >= 0 && column.second < kLayoutConfigFeatureCount;
    if (!fits) {
      throw InputError(where, "columns", "columns of " + graph.source + "'s configs",
                       "[" + std::to_string(column.first) + ", " + std::to_string(column.second) + "]");
    }
  }
  if (!json.contains("trees")) throw InputError(where, "trees", "present", "missing");
  auto learner = std::unique_ptr<XgboostLearner>(
      new XgboostLearner(graph, BoostedTreesOptions{}, std::make_shared<const std::vector<Column>>(std::move(columns))));
  learner->trees_ = BoostedTrees::load_json(json.at("trees").dump(), std::max<size_t>(1, learner->columns_->size()), where);
  return learner;
}

}  // namespace graphcost
