// The cost model described once: its hyperparameters (ModelConfig, as model files store them) and
// the Architecture they imply, the layers, their ops and their parameters, in the order the
// model creates them. Every executor reads the Architecture rather than its own idea of the model:
//   - the training tape (CostModel::node_states over all rows, CostModel::node_sums over a batch's
//     distinct rows, model/distinct_rows.h),
//   - the incremental layout inference (model/layout_inference.h),
//   - the head shared by both (CostModel::head; LayoutInference keeps its parameters).
// They differ in how they compute (batched, deduplicated, incremental), not in what. An option
// (an aggregation, say) is added here and in the kernels (nn/kernels.h): docs/architecture.md,
// "How to add a model option".
//
//   input:   gelu([opcode embedding | node features | config part] W_in + b_in)
//              config part: tile: the config's 24 features on every node; layout: the 18 values of
//              a configurable node embedded (value_rows x config_embedding each), zeros elsewhere
//   layer l: h + layer_norm(gelu(h W_self + agg(producers) W_producers + agg(consumers) W_consumers
//              + b)) [with cross-config attention on the gelu's output]; agg = layer.aggregation
//   head:    [sum | mean] of the node states -> gelu(. W_head + b_head) -> . W_out + b_out
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/dataset_path.h"
#include "data/node_features.h"
#include "nn/kernels.h"

namespace graphcost {

const NameTable<nn::Aggregation>& aggregation_names();  // "sum", "mean", "max"

struct ModelConfig {
  GraphKind kind = GraphKind::Layout;  // written "tile" or "layout" in model files
  std::string collection;              // the collection it was trained on (e.g. layout:xla:random)
  int opcode_embedding = 16;
  int config_embedding = 4;  // per layout value
  int hidden = 64;
  int layers = 2;
  int hops = 1;  // layout graph pruning (-1: whole graph)
  bool cross_config_attention = false;
  // Layout values read relative to the file's most common configuration: a configurable node whose
  // 18 values differ from its most common row (over the file's configs: the node's choice in most
  // of a compiler's search) adds an 8th embedding row, "changed", to each of its 18 embedded
  // values, so "changed from the usual" is an input (most_common_layout_values,
  // data/graph_summary.h). The value rows stay shared by changed and unchanged nodes.
  bool relative_configs = false;
  // How a node combines its neighbours in every message layer: mean (the shipped models) or
  // elementwise max. Written "aggregation" in model files (absent: mean).
  nn::Aggregation aggregation = nn::Aggregation::Mean;
  uint64_t seed = 0;

  nlohmann::json to_json() const;
  static ModelConfig from_json(const nlohmann::json& json);  // InputError on bad fields
  // The sizes' ranges (the same as from_json's): InputError naming the field and `where`.
  void check(const std::string& where) const;
};

// Rows of the layout value embedding: the 7 values (-1..5), and the "changed" row (id 7) for
// relative_configs models.
int layout_value_rows(const ModelConfig& config);
constexpr int kChangedRow = kLayoutValueCount;

// How a parameter starts (before training): embeddings uniform at unit scale, weights uniform at
// 1/sqrt(fan-in), biases zero, norm gains one, attention temperatures 2.
enum class ParameterInit { Embedding, Weight, Zero, One, Temperature };

struct ParameterSpec {
  std::string name;
  int64_t rows = 0, cols = 0;
  ParameterInit init = ParameterInit::Weight;
};

struct InputLayerSpec {
  int node_columns = 0;    // opcode embedding + node features: the rows of `weight` computed once per graph
  int config_columns = 0;  // tile features or layout value embeddings: the rows the configs add
  std::string opcode_embedding, layout_value_embedding, weight, bias;  // layout_value_embedding "" for tile
};

struct MessageLayerSpec {
  nn::Aggregation aggregation = nn::Aggregation::Mean;
  std::string self, producers, consumers, bias, norm_gain, norm_bias;
  bool attention = false;
  std::string attention_weight, attention_inverse_temperature;  // when attention
};

struct HeadSpec {
  std::string weight, bias, out_weight, out_bias;  // pooled [sum | sum / nodes] -> hidden -> 1
};

struct Architecture {
  int hidden = 0;
  InputLayerSpec input;
  std::vector<MessageLayerSpec> layers;
  HeadSpec head;
  std::vector<ParameterSpec> parameters;  // every parameter, in creation order (seeds depend on it)
  // A config's prediction depends on the others of its batch (attention): no incremental inference.
  bool couples_configs() const;
  // Every layer's aggregation is linear: a message changes by the deltas of changed neighbours.
  bool linear_messages() const;
};

Architecture describe_architecture(const ModelConfig& config);

// Name, rows and cols of every parameter a config implies, in creation order.
std::vector<std::tuple<std::string, int64_t, int64_t>> parameter_shapes(const ModelConfig& config);

}  // namespace graphcost
