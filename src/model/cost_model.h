// CostModel: the GNN that predicts a cost (lower = faster) per (graph, configuration).
//
//   node input  = [opcode embedding | 140 normalised node features | configuration features]
//     tile:   the config's 24 normalised features joined to every node ("early join")
//     layout: the 18 layout values of each configurable node embedded (7 values -> small vectors)
//             and joined to that node's row; zeros for other nodes
//   -> linear -> L x GraphSAGE block: h + layer_norm(gelu(W_self h + W_in mean(producers) +
//      W_out mean(consumers) + b))  (residual; messages over in- and out-edges separately)
//      optional cross-config attention inside each block (1st-place TpuGraphs model): for every
//      node and channel w = softmax over the batch's configs of (x / T), T learned, then
//      x <- [x | x * w] W_att. Predictions then depend on which configs share a batch.
//   -> sum and mean pooling over nodes -> MLP -> one scalar per configuration.
// A batch of B configurations of one graph is stacked as B x nodes rows.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"
#include "io/byte_source.h"
#include "io/npy_array.h"
#include "model/architecture.h"
#include "model/distinct_rows.h"
#include "model/feature_encoder.h"
#include "model/graph_view.h"
#include "nn/tape.h"

namespace graphcost {

// relative_configs: `ids` holds a config's embedding ids (value + 1, configurable x 18, as
// layout_config_ids); returns 1 for every id of a node whose row differs from its row in
// `usual_values`, else 0.
std::vector<float> changed_mask(const std::vector<int8_t>& usual_values, const std::vector<int32_t>& ids);

// A graph prepared once for repeated forward passes.
struct PreparedGraph {
  const TpuGraph* graph = nullptr;
  GraphView view;
  nn::Matrix node_features;  // view.size() x 140, normalised
  nn::Matrix tile_configs;   // tile: config_count x 24, normalised
  // layout, relative_configs models: per configurable node, its most common row of 18 values over
  // the graph's configs (configurable x 18); empty otherwise.
  std::vector<int8_t> usual_values;
};

// The rows of `prepared` for `kept` (ascending view indices) only, with the edges among them
// (induced_view): a segment for Graph Segment Training. Shares the graph and tile configs.
PreparedGraph restrict_prepared(const PreparedGraph& prepared, const std::vector<int32_t>& kept);

// How predicted costs map to runtimes. The model is trained to rank, so its cost is a score, not
// a time; a least-squares fit of log runtime on the score within each labelled graph (pooled over
// graphs, after training, on the validation graphs) turns score differences into predicted
// speedups: config b over config a is exp(log_runtime_per_score * (cost_a - cost_b)). `r2` is the
// share of the within-graph log-runtime variance the fit explains: a weak ranker gets a small slope,
// so its predicted speedups stay near 1x.
// A predicted speedup, or why the calibration cannot give one.
struct SpeedupEstimate {
  bool supported = false;
  double value = 1, low = 1, high = 1;  // the estimate and its 95% interval (from the fit's residuals)
  std::string reason;                   // when not supported: why, in a sentence
};

struct RuntimeCalibration {
  double log_runtime_per_score = 0;  // > 0 when fitted
  double r2 = 0;
  int64_t configs = 0;
  int64_t graphs = 0;
  // What the fit saw, so that a speedup is given only where it holds (0 in models calibrated
  // before these were recorded: such a calibration gives no speedups).
  double cost_range = 0;                 // the widest spread of predicted costs within one of its graphs
  double residual_sd = 0;                // of log runtime around the fit, within graphs
  int64_t nodes_min = 0, nodes_max = 0;  // its graphs' node counts
  bool fitted() const { return log_runtime_per_score > 0 && configs > 0; }
  bool knows_its_range() const { return cost_range > 0 && nodes_max > 0; }
  // Half the width of a speedup's 95% interval in log space: each config's log runtime scatters by
  // residual_sd around the fit, their difference by sqrt(2) times that.
  double interval_half_width() const { return 1.96 * std::sqrt(2.0) * residual_sd; }
  // Whether the interval reaches beyond half to twice any figure: then no figure is given.
  bool too_wide_for_figures() const { return interval_half_width() > std::log(2.0); }
  double predicted_speedup(float cost_from, float cost_to) const {  // of cost_to's config over cost_from's
    return std::exp(log_runtime_per_score * (static_cast<double>(cost_from) - static_cast<double>(cost_to)));
  }
  // The speedup of cost_to's config over cost_from's on a graph of `graph_nodes` nodes, with its
  // interval; unsupported when not fitted, when the fit did not record its range, when the graph is
  // unlike the fit's graphs (under half the smallest or over twice the largest node count), when
  // the two costs are further apart than any two the fit saw within one graph (an extrapolation),
  // or when the interval reaches beyond half to twice the figure (residuals too wide to say much).
  SpeedupEstimate estimate_speedup(float cost_from, float cost_to, int64_t graph_nodes) const;
};

class CostModel {
 public:
  CostModel(ModelConfig config, FeatureStatistics statistics);
  // An independent copy (parameters, statistics, calibration): a warm start that leaves the
  // original as it was.
  CostModel clone() const;

  const ModelConfig& config() const { return config_; }
  // The collection the model is trained on (a warm start fine-tuned on another names the new one).
  void set_collection(const std::string& collection) { config_.collection = collection; }
  const FeatureStatistics& statistics() const { return statistics_; }
  std::vector<nn::Parameter*> parameters();
  // The parameter called `name` (names as in parameter_shapes); std::logic_error if absent.
  const nn::Parameter& parameter(const std::string& name) const;
  size_t parameter_count() const;
  const RuntimeCalibration& calibration() const { return calibration_; }
  void set_calibration(const RuntimeCalibration& calibration) { calibration_ = calibration; }

  PreparedGraph prepare(const TpuGraph& graph) const;
  // Predicted costs of `configs` (B x 1) on the tape: head(sum of node_states per config, nodes).
  nn::Var forward(nn::Tape& tape, const PreparedGraph& graph, const std::vector<int32_t>& configs);
  // The node states after the SAGE blocks, (B * nodes) x hidden, config b's nodes at rows b*nodes...
  nn::Var node_states(nn::Tape& tape, const PreparedGraph& graph, const std::vector<int32_t>& configs);
  // Each config's sum of node states (B x hidden): the pooling of node_states. Layout models
  // without attention compute it over the batch's distinct rows (model/distinct_rows.h): the same
  // values and gradients, with configs sharing every row they agree on.
  nn::Var node_sums(nn::Tape& tape, const PreparedGraph& graph, const std::vector<int32_t>& configs);
  // The distinct rows of a layout batch at each layer: what node_sums computes.
  DistinctRows distinct_rows(const PreparedGraph& graph, const std::vector<int32_t>& configs) const;
  // The cost (B x 1) from each config's sum of node states (B x hidden) over a graph of
  // `node_count` nodes (the pooling is [sum | sum / node_count]). Graph Segment Training adds
  // the sums of separately computed segments here.
  nn::Var head(nn::Tape& tape, nn::Var node_sum, double node_count);
  // Whether predictions of a config depend on the others in its batch (cross-config attention):
  // such models rank in fixed chunks of kAttentionChunk configs, without LayoutInference.
  bool couples_configs() const { return architecture_.couples_configs(); }
  // The model described once (model/architecture.h): what every executor runs.
  const Architecture& architecture() const { return architecture_; }
  static constexpr int kAttentionChunk = 128;
  // Predicted costs of every config (no gradients kept). Layout graphs go through LayoutInference
  // (shared work once, per-config increments; `threads` workers; identical configs computed once);
  // tile graphs through forward() in chunks of `batch` configs.
  std::vector<float> predict(const PreparedGraph& graph, int batch = 64, int threads = 1);
  // The same for the listed configs only (indices into the graph's configs), in their order.
  std::vector<float> predict(const PreparedGraph& graph, const std::vector<int32_t>& configs, int batch = 64, int threads = 1);

  // Model file: an .npz with one float32 array per parameter and "model_json" (uint8: the JSON
  // of format version, config and feature statistics). docs/model-format.md.
  void save(const std::string& path) const;
  // The same file with `extra` members added (a training checkpoint's optimizer state; load()
  // ignores members it does not know).
  void save(const std::string& path, const std::vector<std::pair<std::string, NpyArray>>& extra) const;
  static CostModel load(const std::string& path);
  // The same from bytes (a memory source, for the fuzzer and the browser); errors name source.name().
  static CostModel load(const ByteSource& source);

 private:
  nn::Parameter& add_parameter(const std::string& name, int rows, int cols, float scale);
  nn::Parameter& find(const std::string& name);
  // The input layer's config-independent part (view nodes x hidden: [opcode embedding | features]
  // times their rows of input.weight) and the rows of input.weight that multiply config features.
  struct InputLayer {
    nn::Var node_term;
    nn::Var config_weight;
  };
  InputLayer input_layer(nn::Tape& tape, const PreparedGraph& graph);
  // A layout batch's value ids (and relative_configs' changed masks) at the view's configurable
  // nodes, per config, kLayoutConfigFeatureCount per node.
  struct LayoutBatch {
    std::vector<std::vector<int32_t>> ids;
    std::vector<std::vector<float>> changed;
  };
  LayoutBatch layout_batch(const PreparedGraph& graph, const std::vector<int32_t>& configs) const;
  // The config part of the input layer for rows of node values `ids` (18 a row): embedded,
  // flattened and multiplied by `weight`.
  nn::Var layout_config_term(nn::Tape& tape, const std::vector<int32_t>& ids, const std::vector<float>& changed, nn::Var weight);

  ModelConfig config_;
  FeatureStatistics statistics_;
  Architecture architecture_;
  RuntimeCalibration calibration_;
  std::vector<std::unique_ptr<nn::Parameter>> parameters_;
};

}  // namespace graphcost
