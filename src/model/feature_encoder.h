// FeatureEncoder: the model's view of TpuGraphs features, normalised with statistics of the
// training graphs (stored in the model file, so native and WebAssembly inference agree).
//   node features: layout_minor_to_major (134..139) re-padded with -1 beyond the tensor's rank
//     (the files pad with 0, which collides with dimension 0), then sign(x) log(1 + |x|), then
//     standardised per column; columns constant on the training graphs become 0.
//   tile config features (24): the same transform and standardisation.
//   layout config values (-1..5): shifted to embedding ids 0..6 (the model embeds them).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"
#include "model/graph_view.h"
#include "nn/tape.h"

namespace graphcost {

struct FeatureStatistics {
  std::vector<float> node_mean, node_scale;      // 140 each; scale 0 marks a constant column
  std::vector<float> config_mean, config_scale;  // 24 each (tile)

  nlohmann::json to_json() const;
  // Throws InputError (field "feature_statistics") for a malformed object.
  static FeatureStatistics from_json(const nlohmann::json& json);
};

// Statistics over every node (and tile config) of `graphs`.
FeatureStatistics fit_feature_statistics(const std::vector<const TpuGraph*>& graphs);
// The same in two halves, for graphs spread over processes (data-parallel training): the sums the
// statistics come from (sums and sums of squares per column, node and config counts), which add
// up element-wise across parts, and the statistics of such a total.
std::vector<double> feature_sums(const std::vector<const TpuGraph*>& graphs);
FeatureStatistics feature_statistics_from_sums(const std::vector<double>& sums);

// The -1 re-padding and signed log of one node's raw features (140 values).
void transform_node_features(const float* raw, float* out);

// view.size() x 140 normalised node features.
nn::Matrix encode_node_features(const TpuGraph& graph, const GraphView& view, const FeatureStatistics& statistics);
// config_count x 24 normalised tile config features.
nn::Matrix encode_tile_configs(const TpuGraph& graph, const FeatureStatistics& statistics);
// Embedding ids (value + 1, 0..6) of config `config`: configurable x 18, row-major.
std::vector<int32_t> layout_config_ids(const TpuGraph& graph, int32_t config);

}  // namespace graphcost
