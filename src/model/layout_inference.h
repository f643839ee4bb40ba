// LayoutInference: ranks many layout configurations of one graph without recomputing what they
// share. The configurations of a layout graph differ only at configurable nodes, and a GraphSAGE
// layer only spreads a change one hop, so:
//   once per graph:  every node's activations under a base configuration (per configurable node
//                    the row of 18 values most configurations give it), their pooled sum, and the
//                    input layer's node part (opcode embedding + features times their weights);
//   per config:      only the nodes whose values differ from the base, then after each layer
//                    those plus their neighbours; the pooled sum is corrected by the changed rows.
//   across configs:  a row's activation after layer l depends only on the config values within
//                    l hops of it, which most configs share: each distinct row state is computed
//                    once, with its product for the next layer, and found again by an exact key
//                    (on the nlp test graph 37k of 1.33M layer-1 rows are distinct).
// It computes the same function as CostModel::forward (to float rounding; tested), tape-free.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "model/cost_model.h"

namespace graphcost {

// The memory each thread's table of interned row states may hold (default 128 MiB): a run with a
// memory budget sets less, and pays with recomputed states. Process-wide.
void set_layout_state_memory(size_t bytes);
size_t layout_state_memory();

class LayoutInference {
 public:
  // `model` and `graph` must outlive this object; `graph` must be a layout graph prepared by `model`.
  LayoutInference(const CostModel& model, const PreparedGraph& graph);
  ~LayoutInference();

  // Predicted cost of each config in `configs` (lower = faster). `threads` > 1 splits the configs
  // between worker threads (each with its own scratch space and state tables). Natively the
  // results may differ with it, and with earlier calls, in the last float bits: a row state is
  // computed in the batch of new states that first meets it, and Eigen's product can round a row
  // differently in another batch (the WebAssembly kernel does not).
  // `progress(done, total)` is called from the calling thread now and then; returning false stops
  // early (the remaining costs are NaN).
  std::vector<float> predict(const std::vector<int32_t>& configs, int threads = 1,
                             const std::function<bool(size_t, size_t)>& progress = nullptr) const;

  // Costs of configurations given by their values rather than indices: `values` holds
  // count x configurable x 18 layout values (-1..5), laid out like the graph's
  // layout_config_features. For configs the file does not list (what-if edits, occlusion).
  std::vector<float> predict_values(const std::vector<int8_t>& values) const;
  // The base configuration (configurable x 18): each configurable node's most common values.
  const std::vector<int8_t>& base_values() const { return base_values_; }

  // Mean number of rows recomputed per config at each layer (input layer first), over every config
  // predicted so far by this object's last predict() call: how much the increments save.
  const std::vector<double>& mean_recomputed_rows() const { return mean_recomputed_rows_; }
  int32_t view_rows() const { return view_rows_; }

 private:
  struct Scratch;
  struct LayerVectors {
    Eigen::RowVectorXf bias, gain, shift;
  };
  float predict_one(const int8_t* values, Scratch& scratch) const;
  void reset(Scratch& scratch) const;
  const int8_t* config_values(int32_t config) const;
  // Layer `layer` for `rows` from scratch (the base: every row); `raw_messages` gets the messages
  // before bias and activation.
  void run_layer(int layer, const std::vector<int32_t>& rows, const nn::Matrix& in, nn::Matrix& out, Scratch& scratch,
                 nn::Matrix* raw_messages = nullptr) const;
  // The same for a config: scratch.rows[layer] differ from the base, with state ids
  // scratch.ids[layer]; finds the states of scratch.rows[layer + 1] (those and their neighbours,
  // whose messages change), computing only states not seen before: base messages plus the
  // stored delta products.
  void run_layer_delta(int layer, Scratch& scratch) const;
  // A non-linear layer's messages for the fresh rows of run_layer_delta, recomputed from the
  // rows' states (a max cannot be updated by deltas).
  void recompute_messages(int layer, Scratch& scratch) const;
  // For the new states of `layer` at `positions` of rows / ids: their delta products.
  void store_products(int layer, const std::vector<int32_t>& positions, const std::vector<int32_t>& rows, const std::vector<int32_t>& ids,
                      Scratch& scratch) const;
  std::unique_ptr<Scratch> take_scratch() const;  // a spare one if there is one (its states stay valid)
  void give_back(std::unique_ptr<Scratch> scratch) const;
  // Bias, GELU, layer norm and residual for the messages in scratch.message (a row per entry of
  // in_rows / out_rows): out = in + layer_norm(gelu(message + bias)).
  void finish_layer(int layer, const std::vector<const float*>& in_rows, const std::vector<float*>& out_rows, Scratch& scratch) const;

  const CostModel& model_;
  const PreparedGraph& graph_;
  int32_t view_rows_ = 0;
  int hidden_ = 0;
  int layers_ = 0;
  nn::Matrix input_node_part_;             // view rows x hidden: node part of the input layer + its bias
  nn::Matrix value_table_;                 // (18 x value_rows_) x hidden: embedded layout value k=v times its weights
  int value_rows_ = 0;                     // 7, or 8 for relative_configs models (row 7: "changed")
  bool relative_ = false;                  // relative_configs: rows differing from the base add "changed"
  std::vector<int8_t> base_values_;        // configurable x 18: the base configuration
  std::vector<nn::Matrix> base_;           // layers + 1 matrices, view rows x hidden
  Eigen::RowVectorXf base_sum_;            // column sums of base_.back()
  std::vector<nn::Matrix> layer_weights_;  // per layer: [W_self; W_producers; W_consumers] (3h x h)
  std::vector<nn::Matrix> wide_weights_;   // per layer: [W_self | W_producers | W_consumers] (h x 3h)
  std::vector<nn::Matrix> base_messages_;  // per layer: every row's message under the base, before bias
  std::vector<LayerVectors> layer_vectors_;
  std::vector<nn::Aggregation> aggregations_;  // per layer, from the model's Architecture
  nn::Matrix head_weight_;
  Eigen::RowVectorXf head_bias_;
  Eigen::VectorXf out_weight_;
  float out_bias_ = 0;
  mutable std::vector<double> mean_recomputed_rows_;
  // Scratches, with their state tables, kept between calls: a caller predicting a few configs per
  // call (the browser app, between frames; what-if edits) still finds the states computed before.
  mutable std::mutex spare_mutex_;
  mutable std::vector<std::unique_ptr<Scratch>> spare_scratches_;
};

}  // namespace graphcost
