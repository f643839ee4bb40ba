#include "model/layout_inference.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "data/graph_summary.h"
#include "data/node_features.h"
#include "data/opcodes.h"
#include "nn/ops.h"

namespace graphcost {
namespace {

constexpr int kLayoutValues = 7;  // -1..5
constexpr float kNormEpsilon = 1e-5f;

}  // namespace

// Per-thread working state: the current activations of every layer (the base with the rows of
// the config being predicted written over it, restored afterwards), and the recomputed row lists.
struct LayoutInference::Scratch {
  std::vector<nn::Matrix> current;
  std::vector<std::vector<int32_t>> rows;  // per layer: the rows that differ from the base
  std::vector<uint32_t> mark;              // per view row: the stamp of the last list it joined
  uint32_t stamp = 0;
  nn::Matrix stacked, message;
  nn::Matrix deltas, delta_products;       // changed rows' input deltas, and them times [Ws | Wp | Wc]
  std::vector<int32_t> delta_index;        // per view row: its row in `deltas`, or -1
  std::vector<double> recomputed;          // summed row counts per layer
};

LayoutInference::LayoutInference(const CostModel& model, const PreparedGraph& graph) : model_(model), graph_(graph) {
  const ModelConfig& config = model.config();
  const TpuGraph& tpu = *graph.graph;
  if (config.kind != "layout" || tpu.kind != GraphKind::Layout) throw std::logic_error("LayoutInference needs a layout model and graph");
  if (model.couples_configs()) throw std::logic_error("LayoutInference cannot run a model with cross-config attention");
  if (!graph.view.configurable_slot.empty()) throw std::logic_error("LayoutInference needs a whole view, not a segment");
  view_rows_ = graph.view.size();
  hidden_ = config.hidden;
  layers_ = config.layers;
  const int h = hidden_;
  const int node_columns = config.opcode_embedding + kNodeFeatureCount;

  // Input layer, node part: [opcode embedding | features] . W[0 : node_columns] + bias.
  const nn::Matrix& input_weight = model.parameter("input.weight").value;
  const nn::Matrix& opcode_table = model.parameter("opcode_embedding").value;
  nn::Matrix node_part(view_rows_, node_columns);
  for (int32_t v = 0; v < view_rows_; ++v) {
    const int opcode = tpu.node_opcodes[static_cast<size_t>(graph.view.nodes[static_cast<size_t>(v)])];
    node_part.row(v).head(config.opcode_embedding) = opcode_table.row(opcode);
    node_part.row(v).tail(kNodeFeatureCount) = graph.node_features.row(v);
  }
  input_node_part_.noalias() = node_part * input_weight.topRows(node_columns);
  input_node_part_.rowwise() += model.parameter("input.bias").value.row(0);

  // Input layer, config part: value v in column k contributes embedding(v) . W[block k].
  const nn::Matrix& value_embedding = model.parameter("layout_value_embedding").value;
  const int e = config.config_embedding;
  value_table_.resize(kLayoutConfigFeatureCount * kLayoutValues, h);
  for (int k = 0; k < kLayoutConfigFeatureCount; ++k) {
    value_table_.middleRows(k * kLayoutValues, kLayoutValues).noalias() =
        value_embedding * input_weight.middleRows(node_columns + k * e, e);
  }

  for (int l = 0; l < layers_; ++l) {
    const std::string prefix = "sage" + std::to_string(l) + ".";
    nn::Matrix stacked(3 * h, h);
    stacked.topRows(h) = model.parameter(prefix + "self").value;
    stacked.middleRows(h, h) = model.parameter(prefix + "producers").value;
    stacked.bottomRows(h) = model.parameter(prefix + "consumers").value;
    nn::Matrix wide(h, 3 * h);  // [Ws | Wp | Wc]: the delta form's product (see run_layer_delta)
    wide.leftCols(h) = stacked.topRows(h);
    wide.middleCols(h, h) = stacked.middleRows(h, h);
    wide.rightCols(h) = stacked.bottomRows(h);
    layer_weights_.push_back(std::move(stacked));
    wide_weights_.push_back(std::move(wide));
    layer_vectors_.push_back({model.parameter(prefix + "bias").value.row(0), model.parameter(prefix + "norm.gain").value.row(0),
                              model.parameter(prefix + "norm.bias").value.row(0)});
  }

  // Base configuration: per configurable node, the most common row of 18 values.
  const int32_t configurable = tpu.configurable_count();
  base_values_ = most_common_layout_values(tpu);

  // Base activations of every row, computed with the same code as the per-config increments.
  Scratch scratch;
  scratch.current.assign(static_cast<size_t>(layers_) + 1, nn::Matrix::Zero(view_rows_, h));
  base_ = scratch.current;
  nn::Matrix& input = base_[0];
  input = input_node_part_;
  for (int32_t slot = 0; slot < configurable; ++slot) {
    const int32_t v = graph.view.configurable[static_cast<size_t>(slot)];
    for (int k = 0; k < kLayoutConfigFeatureCount; ++k) {
      input.row(v) += value_table_.row(k * kLayoutValues + base_values_[static_cast<size_t>(slot) * kLayoutConfigFeatureCount + k] + 1);
    }
  }
  nn::gelu_in_place(input.data(), input.size());
  std::vector<int32_t> all(static_cast<size_t>(view_rows_));
  for (int32_t v = 0; v < view_rows_; ++v) all[static_cast<size_t>(v)] = v;
  base_messages_.resize(static_cast<size_t>(layers_));
  for (int l = 0; l < layers_; ++l) {
    run_layer(l, all, base_[static_cast<size_t>(l)], base_[static_cast<size_t>(l) + 1], scratch, &base_messages_[static_cast<size_t>(l)]);
  }
  base_sum_ = base_.back().colwise().sum();
  // The head's parameters, looked up once (not per config).
  head_weight_ = model.parameter("head.weight").value;
  head_bias_ = model.parameter("head.bias").value.row(0);
  out_weight_ = model.parameter("out.weight").value.col(0);
  out_bias_ = model.parameter("out.bias").value(0, 0);
}

void LayoutInference::run_layer(int layer, const std::vector<int32_t>& rows, const nn::Matrix& in, nn::Matrix& out,
                                 Scratch& scratch, nn::Matrix* raw_messages) const {
  // out[v] = in[v] + layer_norm(gelu([in[v] | mean in[producers] | mean in[consumers]] . W + b)).
  const int h = hidden_;
  const Eigen::Index count = static_cast<Eigen::Index>(rows.size());
  scratch.stacked.resize(count, 3 * h);
  for (Eigen::Index i = 0; i < count; ++i) {
    const int32_t v = rows[static_cast<size_t>(i)];
    scratch.stacked.row(i).head(h) = in.row(v);
    for (int side = 0; side < 2; ++side) {
      const nn::Adjacency& adjacency = side == 0 ? graph_.view.producers : graph_.view.consumers;
      auto target = scratch.stacked.row(i).segment((side + 1) * h, h);
      target.setZero();
      const int32_t begin = adjacency.offsets[static_cast<size_t>(v)], end = adjacency.offsets[static_cast<size_t>(v) + 1];
      for (int32_t k = begin; k < end; ++k) target += in.row(adjacency.neighbours[static_cast<size_t>(k)]);
      if (end > begin) target /= static_cast<float>(end - begin);
    }
  }
  nn::multiply_into(scratch.stacked, layer_weights_[static_cast<size_t>(layer)], scratch.message);
  if (raw_messages != nullptr) *raw_messages = scratch.message;  // rows in `rows` order (all rows, for the base)
  finish_layer(layer, rows, in, out, scratch);
}

void LayoutInference::run_layer_delta(int layer, const std::vector<int32_t>& changed, const std::vector<int32_t>& rows,
                                      const nn::Matrix& in, nn::Matrix& out, Scratch& scratch) const {
  // A message is linear in its inputs: message(v) = base message(v) + delta(v) Ws
  // + mean over changed producers of delta Wp + mean over changed consumers of delta Wc, where
  // delta = this config's input minus the base's, non-zero only on `changed` rows. One product of
  // the changed rows' deltas (far fewer than `rows`, the changed rows and their neighbours).
  const int h = hidden_;
  const nn::Matrix& base_in = base_[static_cast<size_t>(layer)];
  const Eigen::Index count = static_cast<Eigen::Index>(changed.size());
  scratch.deltas.resize(count, h);
  for (Eigen::Index i = 0; i < count; ++i) {
    const int32_t v = changed[static_cast<size_t>(i)];
    scratch.deltas.row(i) = in.row(v) - base_in.row(v);
    scratch.delta_index[static_cast<size_t>(v)] = static_cast<int32_t>(i);
  }
  nn::multiply_into(scratch.deltas, wide_weights_[static_cast<size_t>(layer)], scratch.delta_products);
  const nn::Matrix& base_message = base_messages_[static_cast<size_t>(layer)];
  scratch.message.resize(static_cast<Eigen::Index>(rows.size()), h);
  for (size_t i = 0; i < rows.size(); ++i) {
    const int32_t v = rows[i];
    auto message = scratch.message.row(static_cast<Eigen::Index>(i));
    message = base_message.row(v);
    const int32_t self = scratch.delta_index[static_cast<size_t>(v)];
    if (self >= 0) message += scratch.delta_products.row(self).head(h);
    for (int side = 0; side < 2; ++side) {
      const nn::Adjacency& adjacency = side == 0 ? graph_.view.producers : graph_.view.consumers;
      const int32_t begin = adjacency.offsets[static_cast<size_t>(v)], end = adjacency.offsets[static_cast<size_t>(v) + 1];
      const float inverse_degree = end > begin ? 1.0f / static_cast<float>(end - begin) : 0.0f;
      for (int32_t k = begin; k < end; ++k) {
        const int32_t u = scratch.delta_index[static_cast<size_t>(adjacency.neighbours[static_cast<size_t>(k)])];
        if (u >= 0) message += inverse_degree * scratch.delta_products.row(u).segment((side + 1) * h, h);
      }
    }
  }
  for (int32_t v : changed) scratch.delta_index[static_cast<size_t>(v)] = -1;
  finish_layer(layer, rows, in, out, scratch);
}

void LayoutInference::finish_layer(int layer, const std::vector<int32_t>& rows, const nn::Matrix& in, nn::Matrix& out,
                                   Scratch& scratch) const {
  // scratch.message holds the rows' raw messages: add the bias, GELU, layer norm, residual.
  const Eigen::Index count = static_cast<Eigen::Index>(rows.size());
  const LayerVectors& vectors = layer_vectors_[static_cast<size_t>(layer)];
  scratch.message.rowwise() += vectors.bias;
  nn::gelu_in_place(scratch.message.data(), scratch.message.size());
  for (Eigen::Index i = 0; i < count; ++i) {
    const int32_t v = rows[static_cast<size_t>(i)];
    auto row = scratch.message.row(i);
    const float mean = row.mean();
    const float inverse_std = 1.0f / std::sqrt((row.array() - mean).square().mean() + kNormEpsilon);
    out.row(v) = in.row(v).array() + ((row.array() - mean) * inverse_std) * vectors.gain.array() + vectors.shift.array();
  }
}

float LayoutInference::predict_one(const int8_t* values, Scratch& scratch) const {
  const TpuGraph& tpu = *graph_.graph;
  const int h = hidden_;
  const int32_t configurable = tpu.configurable_count();
  auto begin_list = [&]() {
    if (++scratch.stamp == 0) {  // wrapped: clear the marks once every 2^32 lists
      std::fill(scratch.mark.begin(), scratch.mark.end(), 0u);
      scratch.stamp = 1;
    }
  };

  // Input layer: rows whose 18 values differ from the base.
  std::vector<int32_t>& first = scratch.rows[0];
  first.clear();
  for (int32_t slot = 0; slot < configurable; ++slot) {
    const int8_t* row = values + static_cast<size_t>(slot) * kLayoutConfigFeatureCount;
    if (!std::equal(row, row + kLayoutConfigFeatureCount, base_values_.begin() + slot * kLayoutConfigFeatureCount)) {
      const int32_t v = graph_.view.configurable[static_cast<size_t>(slot)];
      first.push_back(v);
      auto target = scratch.current[0].row(v);
      target = input_node_part_.row(v);
      for (int k = 0; k < kLayoutConfigFeatureCount; ++k) target += value_table_.row(k * kLayoutValues + row[k] + 1);
      nn::gelu_in_place(target.data(), h);
    }
  }
  scratch.recomputed[0] += static_cast<double>(first.size());

  for (int l = 0; l < layers_; ++l) {
    const std::vector<int32_t>& changed = scratch.rows[static_cast<size_t>(l)];
    std::vector<int32_t>& rows = scratch.rows[static_cast<size_t>(l) + 1];
    rows.clear();
    begin_list();
    auto join = [&](int32_t v) {
      if (scratch.mark[static_cast<size_t>(v)] != scratch.stamp) {
        scratch.mark[static_cast<size_t>(v)] = scratch.stamp;
        rows.push_back(v);
      }
    };
    for (int32_t v : changed) {
      join(v);
      for (const nn::Adjacency* adjacency : {&graph_.view.producers, &graph_.view.consumers}) {
        for (int32_t k = adjacency->offsets[static_cast<size_t>(v)]; k < adjacency->offsets[static_cast<size_t>(v) + 1]; ++k) {
          join(adjacency->neighbours[static_cast<size_t>(k)]);
        }
      }
    }
    scratch.recomputed[static_cast<size_t>(l) + 1] += static_cast<double>(rows.size());
    if (rows.empty()) continue;
    run_layer_delta(l, changed, rows, scratch.current[static_cast<size_t>(l)], scratch.current[static_cast<size_t>(l) + 1], scratch);
  }

  // Pooling: the base sum corrected by the rows this config changed; then the head.
  Eigen::RowVectorXf sum = base_sum_;
  const nn::Matrix& last = scratch.current.back();
  for (int32_t v : scratch.rows.back()) sum += last.row(v) - base_.back().row(v);
  Eigen::RowVectorXf pooled(2 * h);
  pooled.head(h) = sum;
  pooled.tail(h) = sum / static_cast<float>(view_rows_);
  Eigen::RowVectorXf hidden = pooled * head_weight_;
  hidden += head_bias_;
  nn::gelu_in_place(hidden.data(), hidden.size());
  const float cost = hidden.dot(out_weight_) + out_bias_;

  // Restore the base in every row this config wrote.
  for (size_t l = 0; l < scratch.rows.size(); ++l) {
    for (int32_t v : scratch.rows[l]) scratch.current[l].row(v) = base_[l].row(v);
  }
  return cost;
}

std::vector<float> LayoutInference::predict(const std::vector<int32_t>& configs, int threads,
                                            const std::function<bool(size_t, size_t)>& progress) const {
  for (int32_t c : configs) {
    if (c < 0 || c >= graph_.graph->config_count) {
      throw std::out_of_range("config index " + std::to_string(c) + " of a graph with " + std::to_string(graph_.graph->config_count));
    }
  }
  std::vector<float> costs(configs.size(), std::numeric_limits<float>::quiet_NaN());
  const int worker_count = std::max(1, std::min<int>(threads, static_cast<int>(configs.size())));
  std::vector<Scratch> scratches(static_cast<size_t>(worker_count));
  for (Scratch& scratch : scratches) reset(scratch);
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  auto work = [&](Scratch& scratch) {
    for (size_t i = next++; i < configs.size() && !stop; i = next++) {
      costs[i] = predict_one(config_values(configs[i]), scratch);
      ++done;
    }
  };
  std::vector<std::thread> workers;
  try {
    for (int t = 1; t < worker_count; ++t) workers.emplace_back(work, std::ref(scratches[static_cast<size_t>(t)]));
  } catch (const std::system_error&) {  // no threads (WebAssembly without pthreads): this one does all
  }
  // The calling thread works too, reporting progress between configs.
  for (size_t i = next++; i < configs.size() && !stop; i = next++) {
    costs[i] = predict_one(config_values(configs[i]), scratches[0]);
    ++done;
    if (progress && !progress(done.load(), configs.size())) stop = true;
  }
  for (std::thread& worker : workers) worker.join();
  if (progress && !stop) progress(configs.size(), configs.size());
  mean_recomputed_rows_.assign(static_cast<size_t>(layers_) + 1, 0.0);
  for (const Scratch& scratch : scratches) {
    for (size_t l = 0; l < scratch.recomputed.size(); ++l) mean_recomputed_rows_[l] += scratch.recomputed[l];
  }
  for (double& rows : mean_recomputed_rows_) rows /= std::max<double>(1.0, static_cast<double>(done.load()));
  return costs;
}

void LayoutInference::reset(Scratch& scratch) const {
  scratch.current = base_;
  scratch.rows.assign(static_cast<size_t>(layers_) + 1, {});
  scratch.mark.assign(static_cast<size_t>(view_rows_), 0u);
  scratch.delta_index.assign(static_cast<size_t>(view_rows_), -1);
  scratch.recomputed.assign(static_cast<size_t>(layers_) + 1, 0.0);
}

const int8_t* LayoutInference::config_values(int32_t config) const {
  const TpuGraph& tpu = *graph_.graph;
  return tpu.layout_config_features.data() + static_cast<size_t>(config) * static_cast<size_t>(tpu.configurable_count()) * kLayoutConfigFeatureCount;
}

std::vector<float> LayoutInference::predict_values(const std::vector<int8_t>& values) const {
  const size_t width = static_cast<size_t>(graph_.graph->configurable_count()) * kLayoutConfigFeatureCount;
  if (width == 0 || values.size() % width != 0) {
    throw std::invalid_argument("predict_values: " + std::to_string(values.size()) + " values are not a whole number of configs of " +
                                std::to_string(width));
  }
  for (int8_t v : values) {
    if (v < -1 || v > 5) throw std::invalid_argument("predict_values: layout value " + std::to_string(v) + " outside -1..5");
  }
  Scratch scratch;
  reset(scratch);
  std::vector<float> costs(values.size() / width);
  for (size_t c = 0; c < costs.size(); ++c) costs[c] = predict_one(values.data() + c * width, scratch);
  return costs;
}

}  // namespace graphcost
