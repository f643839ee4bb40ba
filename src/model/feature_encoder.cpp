#include "model/feature_encoder.h"

#include <cmath>

#include "common/input_error.h"
#include "data/node_features.h"

namespace graphcost {
namespace {

constexpr int kShapeFirstColumn = 21;

float signed_log(float x) { return x >= 0 ? std::log1p(x) : -std::log1p(-x); }

std::vector<float> read_floats(const nlohmann::json& json, const char* key, size_t expected) {
  if (!json.contains(key) || !json[key].is_array() || json[key].size() != expected) {
    throw InputError("", std::string("feature_statistics.") + key, "an array of " + std::to_string(expected) + " numbers",
                     json.contains(key) ? json[key].dump().substr(0, 40) : "missing");
  }
  std::vector<float> values;
  for (const auto& value : json[key]) {
    if (!value.is_number()) throw InputError("", std::string("feature_statistics.") + key, "numbers", value.dump().substr(0, 20));
    // Means and scales of signed-log features: a scale is at most 1/sqrt(1e-12) (finish below).
    const double number = value.get<double>();
    if (!(std::fabs(number) <= 1e6) || (std::string(key).find("scale") != std::string::npos && number < 0)) {
      throw InputError("", std::string("feature_statistics.") + key, "finite numbers of magnitude at most 1e6 (scales not negative)",
                       value.dump().substr(0, 24) + " at index " + std::to_string(values.size()));
    }
    values.push_back(static_cast<float>(number));
  }
  return values;
}

void finish(std::vector<double>& sum, std::vector<double>& squares, double count, std::vector<float>& mean, std::vector<float>& scale) {
  mean.assign(sum.size(), 0);
  scale.assign(sum.size(), 0);
  if (count <= 0) return;
  for (size_t c = 0; c < sum.size(); ++c) {
    const double m = sum[c] / count;
    const double variance = std::max(0.0, squares[c] / count - m * m);
    mean[c] = static_cast<float>(m);
    scale[c] = variance > 1e-12 ? static_cast<float>(1.0 / std::sqrt(variance)) : 0.0f;
  }
}

}  // namespace

void transform_node_features(const float* raw, float* out) {
  int rank = 0;
  while (rank < 6 && raw[kShapeFirstColumn + rank] > 0) ++rank;
  for (int c = 0; c < kNodeFeatureCount; ++c) {
    float value = raw[c];
    if (c >= kLayoutMinorToMajorFirstColumn && c - kLayoutMinorToMajorFirstColumn >= rank) value = -1;
    out[c] = signed_log(value);
  }
}

// feature_sums layout: node sums, node squares (140 each), config sums, config squares (24 each),
// node count, tile config count.
std::vector<double> feature_sums(const std::vector<const TpuGraph*>& graphs) {
  std::vector<double> sums(2 * kNodeFeatureCount + 2 * kTileConfigFeatureCount + 2, 0.0);
  double* node_sum = sums.data();
  double* node_squares = node_sum + kNodeFeatureCount;
  double* config_sum = node_squares + kNodeFeatureCount;
  double* config_squares = config_sum + kTileConfigFeatureCount;
  double& nodes = sums[sums.size() - 2];
  double& configs = sums[sums.size() - 1];
  float transformed[kNodeFeatureCount];
  for (const TpuGraph* graph : graphs) {
    for (int32_t i = 0; i < graph->node_count; ++i) {
      transform_node_features(graph->node_features.data() + static_cast<size_t>(i) * kNodeFeatureCount, transformed);
      for (int c = 0; c < kNodeFeatureCount; ++c) {
        node_sum[c] += transformed[c];
        node_squares[c] += static_cast<double>(transformed[c]) * transformed[c];
      }
      ++nodes;
    }
    for (size_t k = 0; k < graph->tile_config_features.size(); ++k) {
      const double value = signed_log(graph->tile_config_features[k]);
      config_sum[k % kTileConfigFeatureCount] += value;
      config_squares[k % kTileConfigFeatureCount] += value * value;
    }
    if (graph->kind == GraphKind::Tile) configs += graph->config_count;
  }
  return sums;
}

FeatureStatistics feature_statistics_from_sums(const std::vector<double>& sums) {
  auto part = [&](size_t offset, size_t count) { return std::vector<double>(sums.begin() + offset, sums.begin() + offset + count); };
  std::vector<double> node_sum = part(0, kNodeFeatureCount), node_squares = part(kNodeFeatureCount, kNodeFeatureCount);
  std::vector<double> config_sum = part(2 * kNodeFeatureCount, kTileConfigFeatureCount);
  std::vector<double> config_squares = part(2 * kNodeFeatureCount + kTileConfigFeatureCount, kTileConfigFeatureCount);
  FeatureStatistics statistics;
  finish(node_sum, node_squares, sums[sums.size() - 2], statistics.node_mean, statistics.node_scale);
  finish(config_sum, config_squares, sums[sums.size() - 1], statistics.config_mean, statistics.config_scale);
  return statistics;
}

FeatureStatistics fit_feature_statistics(const std::vector<const TpuGraph*>& graphs) {
  return feature_statistics_from_sums(feature_sums(graphs));
}

nn::Matrix encode_node_features(const TpuGraph& graph, const GraphView& view, const FeatureStatistics& statistics) {
  nn::Matrix out(view.size(), kNodeFeatureCount);
  float transformed[kNodeFeatureCount];
  for (int32_t v = 0; v < view.size(); ++v) {
    transform_node_features(graph.node_features.data() + static_cast<size_t>(view.nodes[static_cast<size_t>(v)]) * kNodeFeatureCount,
                            transformed);
    for (int c = 0; c < kNodeFeatureCount; ++c) {
      out(v, c) = (transformed[c] - statistics.node_mean[static_cast<size_t>(c)]) * statistics.node_scale[static_cast<size_t>(c)];
    }
  }
  return out;
}

nn::Matrix encode_tile_configs(const TpuGraph& graph, const FeatureStatistics& statistics) {
  nn::Matrix out(graph.config_count, kTileConfigFeatureCount);
  for (int32_t r = 0; r < graph.config_count; ++r) {
    for (int c = 0; c < kTileConfigFeatureCount; ++c) {
      const float value = signed_log(graph.tile_config_features[static_cast<size_t>(r) * kTileConfigFeatureCount + static_cast<size_t>(c)]);
      out(r, c) = (value - statistics.config_mean[static_cast<size_t>(c)]) * statistics.config_scale[static_cast<size_t>(c)];
    }
  }
  return out;
}

std::vector<int32_t> layout_config_ids(const TpuGraph& graph, int32_t config) {
  const size_t width = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  std::vector<int32_t> ids(width);
  const int8_t* values = graph.layout_config_features.data() + static_cast<size_t>(config) * width;
  for (size_t i = 0; i < width; ++i) ids[i] = values[i] + 1;
  return ids;
}

nlohmann::json FeatureStatistics::to_json() const {
  return {{"node_mean", node_mean}, {"node_scale", node_scale}, {"config_mean", config_mean}, {"config_scale", config_scale}};
}

FeatureStatistics FeatureStatistics::from_json(const nlohmann::json& json) {
  if (!json.is_object()) throw InputError("", "feature_statistics", "an object", json.type_name());
  FeatureStatistics statistics;
  statistics.node_mean = read_floats(json, "node_mean", kNodeFeatureCount);
  statistics.node_scale = read_floats(json, "node_scale", kNodeFeatureCount);
  statistics.config_mean = read_floats(json, "config_mean", kTileConfigFeatureCount);
  statistics.config_scale = read_floats(json, "config_scale", kTileConfigFeatureCount);
  return statistics;
}

}  // namespace graphcost
