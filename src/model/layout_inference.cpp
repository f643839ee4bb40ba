#include "model/layout_inference.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "common/internal_error.h"
#include "data/graph_summary.h"
#include "data/node_features.h"
#include "data/opcodes.h"
#include "nn/ops.h"

namespace graphcost {
namespace {

constexpr float kNormEpsilon = 1e-5f;
// The state tables of one scratch (values, products and keys) hold at most this many bytes (128 MiB
// unless set_layout_state_memory says otherwise); past it they are cleared and refilled, which
// costs time, never correctness. A LayoutInference keeps one scratch per thread that has used it,
// until it is destroyed.
std::atomic<size_t> state_memory_bytes{size_t{128} << 20};

}  // namespace

void set_layout_state_memory(size_t bytes) { state_memory_bytes = bytes; }
size_t layout_state_memory() { return state_memory_bytes; }

// Row states, interned per layer. A row's activation after layer l depends only on the config
// values within l hops of it, and configs share most of those: of the nlp test graph's 1.33
// million layer-1 rows over its 1,001 configs, 36,795 are distinct. So each distinct state is
// computed once, with its delta product for the next layer, and found again by its key: the row
// and the states it was computed from (for layer 0, the row and its 18 values). Keys are whole
// tuples compared exactly, not hashes, so a lookup never returns another state's numbers.
// Exact interning of keys (short tuples of int32) to dense ids 0, 1, 2...: open addressing over
// (hash tag, id) slots, the keys themselves in one arena compared word by word when a tag matches.
// (std::unordered_map with vector keys took three cache misses a lookup: most of the ranking.)
class StateIndex {
 public:
  // The id of `key`, and whether it was added just now.
  std::pair<int32_t, bool> intern(const std::vector<int32_t>& key) {
    if ((starts_.size() + 1) * 2 > slots_.size()) grow();
    const uint64_t hash = hash_of(key);
    const uint32_t tag = static_cast<uint32_t>(hash >> 32);
    const size_t mask = slots_.size() - 1;
    for (size_t i = static_cast<size_t>(hash) & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id < 0) {
        slot = {tag, static_cast<int32_t>(starts_.size())};
        starts_.push_back(words_.size());
        words_.insert(words_.end(), key.begin(), key.end());
        return {slot.id, true};
      }
      if (slot.tag == tag && equals(slot.id, key)) return {slot.id, false};
    }
  }
  size_t size() const { return starts_.size(); }
  // Empty again, keeping the memory: a table refilled from nothing grows again by reallocation,
  // and when one config's states outgrow the cap that happened for every config.
  void clear() {
    std::fill(slots_.begin(), slots_.end(), Slot{});
    starts_.clear();
    words_.clear();
  }
  size_t memory_words() const { return words_.size() + 2 * starts_.size() + 2 * slots_.size(); }  // 4-byte words held

 private:
  struct Slot {
    uint32_t tag = 0;
    int32_t id = -1;
  };
  static uint64_t hash_of(const std::vector<int32_t>& key) {
    uint64_t hash = 0x9e3779b97f4a7c15ull ^ key.size();
    for (const int32_t word : key) hash = (hash ^ static_cast<uint32_t>(word)) * 0x100000001b3ull;
    hash ^= hash >> 33;  // a final mix (splitmix64's): the low bits pick the slot
    hash *= 0xff51afd7ed558ccdull;
    return hash ^ (hash >> 33);
  }
  bool equals(int32_t id, const std::vector<int32_t>& key) const {
    const size_t begin = starts_[static_cast<size_t>(id)];
    const size_t end = static_cast<size_t>(id) + 1 < starts_.size() ? starts_[static_cast<size_t>(id) + 1] : words_.size();
    return end - begin == key.size() && std::equal(key.begin(), key.end(), words_.begin() + static_cast<std::ptrdiff_t>(begin));
  }
  void grow() {
    std::vector<Slot> slots(std::max<size_t>(1024, slots_.size() * 2));
    const size_t mask = slots.size() - 1;
    std::vector<int32_t> key;
    for (size_t id = 0; id < starts_.size(); ++id) {
      const size_t end = id + 1 < starts_.size() ? starts_[id + 1] : words_.size();
      key.assign(words_.begin() + static_cast<std::ptrdiff_t>(starts_[id]), words_.begin() + static_cast<std::ptrdiff_t>(end));
      const uint64_t hash = hash_of(key);
      size_t i = static_cast<size_t>(hash) & mask;
      while (slots[i].id >= 0) i = (i + 1) & mask;
      slots[i] = {static_cast<uint32_t>(hash >> 32), static_cast<int32_t>(id)};
    }
    slots_ = std::move(slots);
  }

  std::vector<Slot> slots_;     // a power of two, at most half full
  std::vector<size_t> starts_;  // per id: where its key starts in words_
  std::vector<int32_t> words_;
};

struct StateTable {
  StateIndex ids;
  std::vector<float> values;    // id -> activation row (hidden floats)
  std::vector<float> products;  // id -> (activation - base) . [Ws | Wp | Wc] (3 hidden floats); not after the last layer

  void clear() {  // keeping the memory (StateIndex::clear)
    ids.clear();
    values.clear();
    products.clear();
  }
};

// Per-thread working state: the state tables (kept between predict() calls, see spare_scratches_),
// and for the config being predicted, per layer, the rows that differ from the base and their
// state ids.
struct LayoutInference::Scratch {
  std::vector<StateTable> states;          // per layer (layers + 1)
  std::vector<std::vector<int32_t>> rows;  // per layer: the rows that differ from the base
  std::vector<std::vector<int32_t>> ids;   // per layer: their state ids
  std::vector<int32_t> index;              // per view row: its state id in the current layer, or -1 (the base)
  std::vector<uint32_t> mark;              // per view row: the stamp of the last list it joined
  uint32_t stamp = 0;
  std::vector<int32_t> key, fresh;  // a key being looked up; positions whose state is new
  nn::Matrix stacked, message;
  nn::Matrix deltas, delta_products;
  std::vector<const float*> neighbour_rows;  // one side's neighbours of a row, for nn::aggregate_rows
  std::vector<const float*> in_rows;         // finish_layer's operands
  std::vector<float*> out_rows;
  std::vector<double> recomputed;  // summed row counts per layer
};

LayoutInference::~LayoutInference() = default;

LayoutInference::LayoutInference(const CostModel& model, const PreparedGraph& graph) : model_(model), graph_(graph) {
  const ModelConfig& config = model.config();
  const TpuGraph& tpu = *graph.graph;
  if (config.kind != GraphKind::Layout || tpu.kind != GraphKind::Layout)
    throw InternalError("LayoutInference needs a layout model and graph");
  if (model.couples_configs()) throw InternalError("LayoutInference cannot run a model with cross-config attention");
  if (!graph.view.configurable_slot.empty()) throw InternalError("LayoutInference needs a whole view, not a segment");
  view_rows_ = graph.view.size();
  hidden_ = config.hidden;
  layers_ = config.layers;
  const int h = hidden_;
  const int node_columns = config.opcode_embedding + kNodeFeatureCount;

  // Input layer, node part: [opcode embedding | features] . W[0 : node_columns] + bias.
  const Architecture& architecture = model.architecture();
  const nn::Matrix& input_weight = model.parameter(architecture.input.weight).value;
  const nn::Matrix& opcode_table = model.parameter(architecture.input.opcode_embedding).value;
  nn::Matrix node_part(view_rows_, node_columns);
  for (int32_t v = 0; v < view_rows_; ++v) {
    const int opcode = tpu.node_opcodes[static_cast<size_t>(graph.view.nodes[static_cast<size_t>(v)])];
    node_part.row(v).head(config.opcode_embedding) = opcode_table.row(opcode);
    node_part.row(v).tail(kNodeFeatureCount) = graph.node_features.row(v);
  }
  input_node_part_.noalias() = node_part * input_weight.topRows(node_columns);
  input_node_part_.rowwise() += model.parameter(architecture.input.bias).value.row(0);

  // Input layer, config part: value v in column k contributes embedding(v) . W[block k]. For
  // relative_configs models a node whose row differs from the base (its most common row, the
  // model's "usual" row) also adds embedding(changed) . W[block k] in every column.
  const nn::Matrix& value_embedding = model.parameter(architecture.input.layout_value_embedding).value;
  const int e = config.config_embedding;
  value_rows_ = layout_value_rows(config);
  relative_ = config.relative_configs;
  value_table_.resize(kLayoutConfigFeatureCount * value_rows_, h);
  for (int k = 0; k < kLayoutConfigFeatureCount; ++k) {
    value_table_.middleRows(k * value_rows_, value_rows_).noalias() = value_embedding * input_weight.middleRows(node_columns + k * e, e);
  }

  for (const MessageLayerSpec& layer : architecture.layers) {
    nn::Matrix stacked(3 * h, h);
    stacked.topRows(h) = model.parameter(layer.self).value;
    stacked.middleRows(h, h) = model.parameter(layer.producers).value;
    stacked.bottomRows(h) = model.parameter(layer.consumers).value;
    nn::Matrix wide(h, 3 * h);  // [Ws | Wp | Wc]: the delta form's product (see run_layer_delta)
    wide.leftCols(h) = stacked.topRows(h);
    wide.middleCols(h, h) = stacked.middleRows(h, h);
    wide.rightCols(h) = stacked.bottomRows(h);
    layer_weights_.push_back(std::move(stacked));
    wide_weights_.push_back(std::move(wide));
    layer_vectors_.push_back({model.parameter(layer.bias).value.row(0), model.parameter(layer.norm_gain).value.row(0),
                              model.parameter(layer.norm_bias).value.row(0)});
    aggregations_.push_back(layer.aggregation);
  }

  // Base configuration: per configurable node, the most common row of 18 values.
  const int32_t configurable = tpu.configurable_count();
  base_values_ = config.relative_configs ? graph.usual_values : most_common_layout_values(tpu);
  if (base_values_.size() != static_cast<size_t>(configurable) * kLayoutConfigFeatureCount) {
    throw InternalError("LayoutInference: the prepared graph has no usual values for a relative_configs model");
  }

  // Base activations of every row, computed with the same code as the per-config increments.
  Scratch scratch;
  base_.assign(static_cast<size_t>(layers_) + 1, nn::Matrix::Zero(view_rows_, h));
  nn::Matrix& input = base_[0];
  input = input_node_part_;
  for (int32_t slot = 0; slot < configurable; ++slot) {
    const int32_t v = graph.view.configurable[static_cast<size_t>(slot)];
    for (int k = 0; k < kLayoutConfigFeatureCount; ++k) {
      input.row(v) += value_table_.row(k * value_rows_ + base_values_[static_cast<size_t>(slot) * kLayoutConfigFeatureCount + k] + 1);
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
  head_weight_ = model.parameter(architecture.head.weight).value;
  head_bias_ = model.parameter(architecture.head.bias).value.row(0);
  out_weight_ = model.parameter(architecture.head.out_weight).value.col(0);
  out_bias_ = model.parameter(architecture.head.out_bias).value(0, 0);
}

void LayoutInference::run_layer(int layer, const std::vector<int32_t>& rows, const nn::Matrix& in, nn::Matrix& out, Scratch& scratch,
                                nn::Matrix* raw_messages) const {
  // out[v] = in[v] + layer_norm(gelu([in[v] | agg in[producers] | agg in[consumers]] . W + b)).
  const int h = hidden_;
  const Eigen::Index count = static_cast<Eigen::Index>(rows.size());
  scratch.stacked.resize(count, 3 * h);
  for (Eigen::Index i = 0; i < count; ++i) {
    const int32_t v = rows[static_cast<size_t>(i)];
    nn::copy_into(scratch.stacked.row(i).data(), in.row(v).data(), h);
    for (int side = 0; side < 2; ++side) {
      const nn::Adjacency& adjacency = side == 0 ? graph_.view.producers : graph_.view.consumers;
      scratch.neighbour_rows.clear();
      for (int32_t k = adjacency.offsets[static_cast<size_t>(v)]; k < adjacency.offsets[static_cast<size_t>(v) + 1]; ++k) {
        scratch.neighbour_rows.push_back(in.row(adjacency.neighbours[static_cast<size_t>(k)]).data());
      }
      nn::aggregate_rows(aggregations_[static_cast<size_t>(layer)], scratch.neighbour_rows.data(),
                         static_cast<int>(scratch.neighbour_rows.size()), scratch.stacked.row(i).data() + (side + 1) * h, h);
    }
  }
  nn::multiply_into(scratch.stacked, layer_weights_[static_cast<size_t>(layer)], scratch.message);
  if (raw_messages != nullptr) *raw_messages = scratch.message;  // rows in `rows` order (all rows, for the base)
  scratch.in_rows.clear();
  scratch.out_rows.clear();
  for (const int32_t v : rows) {
    scratch.in_rows.push_back(in.row(v).data());
    scratch.out_rows.push_back(out.row(v).data());
  }
  finish_layer(layer, scratch.in_rows, scratch.out_rows, scratch);
}

void LayoutInference::run_layer_delta(int layer, Scratch& scratch) const {
  // Each row of rows[layer + 1] (the changed rows and their neighbours) gets the state its key
  // names; only new states are computed. A message is linear in its inputs:
  //   message(v) = base message(v) + delta(v) Ws + mean over producers of delta Wp + mean over
  //   consumers of delta Wc,
  // where delta = a state's activation minus the base's (zero for unchanged rows), and each state's
  // delta . [Ws | Wp | Wc] was computed when the state was.
  const int h = hidden_;
  const size_t l = static_cast<size_t>(layer);
  const std::vector<int32_t>& rows = scratch.rows[l + 1];
  std::vector<int32_t>& ids = scratch.ids[l + 1];
  const StateTable& in_states = scratch.states[l];
  StateTable& out_states = scratch.states[l + 1];
  for (size_t i = 0; i < scratch.rows[l].size(); ++i) scratch.index[static_cast<size_t>(scratch.rows[l][i])] = scratch.ids[l][i];

  // Keys: the row, its own state, and (position among its neighbours, state) of changed neighbours.
  ids.resize(rows.size());
  scratch.fresh.clear();
  for (size_t i = 0; i < rows.size(); ++i) {
    const int32_t v = rows[i];
    std::vector<int32_t>& key = scratch.key;
    key.assign({v, scratch.index[static_cast<size_t>(v)]});
    int32_t position = 0;
    for (const nn::Adjacency* adjacency : {&graph_.view.producers, &graph_.view.consumers}) {
      for (int32_t k = adjacency->offsets[static_cast<size_t>(v)]; k < adjacency->offsets[static_cast<size_t>(v) + 1]; ++k, ++position) {
        const int32_t state = scratch.index[static_cast<size_t>(adjacency->neighbours[static_cast<size_t>(k)])];
        if (state >= 0) key.insert(key.end(), {position, state});
      }
    }
    const auto [id, added] = out_states.ids.intern(key);
    ids[i] = id;
    if (added) scratch.fresh.push_back(static_cast<int32_t>(i));
  }

  if (!scratch.fresh.empty()) {
    // The next layer's delta products are needed only when it aggregates linearly.
    const bool next_products = layer + 1 < layers_ && nn::is_linear(aggregations_[l + 1]);
    out_states.values.resize(out_states.ids.size() * static_cast<size_t>(h));
    if (next_products) out_states.products.resize(out_states.ids.size() * 3 * static_cast<size_t>(h));
    const nn::Matrix& base_message = base_messages_[l];
    const nn::Matrix& base_in = base_[l];
    scratch.message.resize(static_cast<Eigen::Index>(scratch.fresh.size()), h);
    scratch.in_rows.clear();
    scratch.out_rows.clear();
    const bool linear = nn::is_linear(aggregations_[l]);
    if (!linear) recompute_messages(layer, scratch);  // every fresh row's message from its rows' states
    for (size_t j = 0; j < scratch.fresh.size(); ++j) {
      const size_t i = static_cast<size_t>(scratch.fresh[j]);
      const int32_t v = rows[i];
      const int32_t self = scratch.index[static_cast<size_t>(v)];
      float* message = scratch.message.row(static_cast<Eigen::Index>(j)).data();
      for (int side = linear ? 0 : 2; side < 2; ++side) {
        if (side == 0) {
          nn::copy_into(message, base_message.row(v).data(), h);
          if (self >= 0) nn::add_into(message, in_states.products.data() + static_cast<size_t>(self) * 3 * h, h);
        }
        const nn::Adjacency& adjacency = side == 0 ? graph_.view.producers : graph_.view.consumers;
        const int32_t begin = adjacency.offsets[static_cast<size_t>(v)], end = adjacency.offsets[static_cast<size_t>(v) + 1];
        // Linear aggregations: each changed neighbour adds its delta product, over the count for Mean.
        const float inverse_degree = aggregations_[l] == nn::Aggregation::Sum ? 1.0f
                                     : end > begin                            ? 1.0f / static_cast<float>(end - begin)
                                                                              : 0.0f;
        for (int32_t k = begin; k < end; ++k) {
          const int32_t u = scratch.index[static_cast<size_t>(adjacency.neighbours[static_cast<size_t>(k)])];
          if (u >= 0)
            nn::add_scaled_into(message, in_states.products.data() + static_cast<size_t>(u) * 3 * h + (side + 1) * h, inverse_degree, h);
        }
      }
      // The residual's input: the row's state where it changed, else the base's activation.
      scratch.in_rows.push_back(self >= 0 ? in_states.values.data() + static_cast<size_t>(self) * h : base_in.row(v).data());
      scratch.out_rows.push_back(out_states.values.data() + static_cast<size_t>(ids[i]) * h);
    }
    finish_layer(layer, scratch.in_rows, scratch.out_rows, scratch);
    if (next_products) store_products(layer + 1, scratch.fresh, rows, ids, scratch);
  }
  for (int32_t v : scratch.rows[l]) scratch.index[static_cast<size_t>(v)] = -1;
}

void LayoutInference::recompute_messages(int layer, Scratch& scratch) const {
  // A non-linear aggregation (max): a changed neighbour's delta says nothing about the others, so
  // each fresh row's [own row | aggregate of producers | aggregate of consumers] is gathered anew,
  // every row read from its state where it changed, else from the base's activations, and
  // multiplied by the stacked weights: the base run's computation on these rows.
  const int h = hidden_;
  const size_t l = static_cast<size_t>(layer);
  const StateTable& in_states = scratch.states[l];
  const nn::Matrix& base_in = base_[l];
  const std::vector<int32_t>& rows = scratch.rows[l + 1];
  auto row_of = [&](int32_t v) -> const float* {
    const int32_t state = scratch.index[static_cast<size_t>(v)];
    return state >= 0 ? in_states.values.data() + static_cast<size_t>(state) * h : base_in.row(v).data();
  };
  scratch.stacked.resize(static_cast<Eigen::Index>(scratch.fresh.size()), 3 * h);
  for (size_t j = 0; j < scratch.fresh.size(); ++j) {
    const int32_t v = rows[static_cast<size_t>(scratch.fresh[j])];
    float* stacked = scratch.stacked.row(static_cast<Eigen::Index>(j)).data();
    nn::copy_into(stacked, row_of(v), h);
    for (int side = 0; side < 2; ++side) {
      const nn::Adjacency& adjacency = side == 0 ? graph_.view.producers : graph_.view.consumers;
      scratch.neighbour_rows.clear();
      for (int32_t k = adjacency.offsets[static_cast<size_t>(v)]; k < adjacency.offsets[static_cast<size_t>(v) + 1]; ++k) {
        scratch.neighbour_rows.push_back(row_of(adjacency.neighbours[static_cast<size_t>(k)]));
      }
      nn::aggregate_rows(aggregations_[l], scratch.neighbour_rows.data(), static_cast<int>(scratch.neighbour_rows.size()),
                         stacked + (side + 1) * h, h);
    }
  }
  nn::multiply_into(scratch.stacked, layer_weights_[l], scratch.message);
}

void LayoutInference::store_products(int layer, const std::vector<int32_t>& positions, const std::vector<int32_t>& rows,
                                     const std::vector<int32_t>& ids, Scratch& scratch) const {
  // For new states of `layer` (at `positions` of rows / ids): (activation - base) . [Ws | Wp | Wc].
  const int h = hidden_;
  StateTable& states = scratch.states[static_cast<size_t>(layer)];
  const nn::Matrix& base = base_[static_cast<size_t>(layer)];
  scratch.deltas.resize(static_cast<Eigen::Index>(positions.size()), h);
  for (size_t j = 0; j < positions.size(); ++j) {
    const size_t i = static_cast<size_t>(positions[j]);
    scratch.deltas.row(static_cast<Eigen::Index>(j)) =
        Eigen::Map<const Eigen::RowVectorXf>(states.values.data() + static_cast<size_t>(ids[i]) * h, h) - base.row(rows[i]);
  }
  nn::multiply_into(scratch.deltas, wide_weights_[static_cast<size_t>(layer)], scratch.delta_products);
  for (size_t j = 0; j < positions.size(); ++j) {
    nn::copy_into(states.products.data() + static_cast<size_t>(ids[static_cast<size_t>(positions[j])]) * 3 * h,
                  scratch.delta_products.row(static_cast<Eigen::Index>(j)).data(), 3 * h);
  }
}

void LayoutInference::finish_layer(int layer, const std::vector<const float*>& in_rows, const std::vector<float*>& out_rows,
                                   Scratch& scratch) const {
  // scratch.message holds the rows' raw messages: add the bias, GELU, layer norm, residual.
  const LayerVectors& vectors = layer_vectors_[static_cast<size_t>(layer)];
  const Eigen::Index h = scratch.message.cols();
  for (size_t i = 0; i < in_rows.size(); ++i)
    nn::add_into(scratch.message.row(static_cast<Eigen::Index>(i)).data(), vectors.bias.data(), h);
  nn::gelu_in_place(scratch.message.data(), scratch.message.size());
  for (size_t i = 0; i < in_rows.size(); ++i) {
    nn::residual_layer_norm(scratch.message.row(static_cast<Eigen::Index>(i)).data(), in_rows[i], vectors.gain.data(), vectors.shift.data(),
                            kNormEpsilon, out_rows[i], h);
  }
}

float LayoutInference::predict_one(const int8_t* values, Scratch& scratch) const {
  const int h = hidden_;
  const int32_t configurable = graph_.graph->configurable_count();
  size_t held = 0;  // 4-byte words in the state tables, keys included
  for (const StateTable& table : scratch.states) held += table.values.size() + table.products.size() + table.ids.memory_words();
  if (held * sizeof(float) > state_memory_bytes) {  // full: start the tables again
    for (StateTable& table : scratch.states) table.clear();
  }
  auto begin_list = [&]() {
    if (++scratch.stamp == 0) {  // wrapped: clear the marks once every 2^32 lists
      std::fill(scratch.mark.begin(), scratch.mark.end(), 0u);
      scratch.stamp = 1;
    }
  };

  // Input layer: rows whose 18 values differ from the base, keyed by the row and its values.
  std::vector<int32_t>& first = scratch.rows[0];
  std::vector<int32_t>& first_ids = scratch.ids[0];
  StateTable& inputs = scratch.states[0];
  first.clear();
  first_ids.clear();
  scratch.fresh.clear();
  for (int32_t slot = 0; slot < configurable; ++slot) {
    const int8_t* row = values + static_cast<size_t>(slot) * kLayoutConfigFeatureCount;
    if (std::equal(row, row + kLayoutConfigFeatureCount, base_values_.begin() + slot * kLayoutConfigFeatureCount)) continue;
    const int32_t v = graph_.view.configurable[static_cast<size_t>(slot)];
    scratch.key.assign(row, row + kLayoutConfigFeatureCount);
    scratch.key.push_back(v);
    const auto [id, added] = inputs.ids.intern(scratch.key);
    if (added) {
      inputs.values.resize(inputs.ids.size() * static_cast<size_t>(h));
      float* target = inputs.values.data() + static_cast<size_t>(id) * h;
      nn::copy_into(target, input_node_part_.row(v).data(), h);
      for (int k = 0; k < kLayoutConfigFeatureCount; ++k) nn::add_into(target, value_table_.row(k * value_rows_ + row[k] + 1).data(), h);
      if (relative_) {  // the row differs from the base: the "changed" row in every column
        for (int k = 0; k < kLayoutConfigFeatureCount; ++k) nn::add_into(target, value_table_.row(k * value_rows_ + kChangedRow).data(), h);
      }
      nn::gelu_in_place(target, h);
      scratch.fresh.push_back(static_cast<int32_t>(first.size()));
    }
    first.push_back(v);
    first_ids.push_back(id);
  }
  if (!scratch.fresh.empty() && layers_ > 0 && nn::is_linear(aggregations_[0])) {
    inputs.products.resize(inputs.ids.size() * 3 * static_cast<size_t>(h));
    store_products(0, scratch.fresh, first, first_ids, scratch);
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
    run_layer_delta(l, scratch);
  }

  // Pooling: the base sum corrected by the rows this config changed; then the head.
  Eigen::RowVectorXf sum = base_sum_;
  const StateTable& last = scratch.states.back();
  const nn::Matrix& base_last = base_.back();
  const std::vector<int32_t>& last_rows = scratch.rows.back();
  const std::vector<int32_t>& last_ids = scratch.ids.back();
  for (size_t i = 0; i < last_rows.size(); ++i) {
    sum += Eigen::Map<const Eigen::RowVectorXf>(last.values.data() + static_cast<size_t>(last_ids[i]) * h, h) - base_last.row(last_rows[i]);
  }
  Eigen::RowVectorXf pooled(2 * h);
  pooled.head(h) = sum;
  pooled.tail(h) = sum / static_cast<float>(view_rows_);
  Eigen::RowVectorXf hidden = pooled * head_weight_;
  hidden += head_bias_;
  nn::gelu_in_place(hidden.data(), hidden.size());
  return hidden.dot(out_weight_) + out_bias_;
}

std::vector<float> LayoutInference::predict(const std::vector<int32_t>& configs, int threads,
                                            const std::function<bool(size_t, size_t)>& progress) const {
  for (int32_t c : configs) {
    if (c < 0 || c >= graph_.graph->config_count) {
      throw InternalError("config index " + std::to_string(c) + " of a graph with " + std::to_string(graph_.graph->config_count));
    }
  }
  std::vector<float> costs(configs.size(), std::numeric_limits<float>::quiet_NaN());
  const int worker_count = std::max(1, std::min<int>(threads, static_cast<int>(configs.size())));
  std::vector<std::unique_ptr<Scratch>> owned;
  for (int t = 0; t < worker_count; ++t) owned.push_back(take_scratch());
  std::vector<std::reference_wrapper<Scratch>> scratches;
  for (auto& scratch : owned) {
    std::fill(scratch->recomputed.begin(), scratch->recomputed.end(), 0.0);
    scratches.emplace_back(*scratch);
  }
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
  for (auto& scratch : owned) give_back(std::move(scratch));
  return costs;
}

std::unique_ptr<LayoutInference::Scratch> LayoutInference::take_scratch() const {
  {
    const std::lock_guard<std::mutex> lock(spare_mutex_);
    if (!spare_scratches_.empty()) {
      std::unique_ptr<Scratch> scratch = std::move(spare_scratches_.back());
      spare_scratches_.pop_back();
      return scratch;
    }
  }
  auto scratch = std::make_unique<Scratch>();
  reset(*scratch);
  return scratch;
}

void LayoutInference::give_back(std::unique_ptr<Scratch> scratch) const {
  const std::lock_guard<std::mutex> lock(spare_mutex_);
  spare_scratches_.push_back(std::move(scratch));
}

void LayoutInference::reset(Scratch& scratch) const {
  scratch.states.assign(static_cast<size_t>(layers_) + 1, StateTable());
  scratch.rows.assign(static_cast<size_t>(layers_) + 1, {});
  scratch.ids.assign(static_cast<size_t>(layers_) + 1, {});
  scratch.mark.assign(static_cast<size_t>(view_rows_), 0u);
  scratch.index.assign(static_cast<size_t>(view_rows_), -1);
  scratch.recomputed.assign(static_cast<size_t>(layers_) + 1, 0.0);
}

const int8_t* LayoutInference::config_values(int32_t config) const {
  const TpuGraph& tpu = *graph_.graph;
  return tpu.layout_config_features.data() +
         static_cast<size_t>(config) * static_cast<size_t>(tpu.configurable_count()) * kLayoutConfigFeatureCount;
}

std::vector<float> LayoutInference::predict_values(const std::vector<int8_t>& values) const {
  const size_t width = static_cast<size_t>(graph_.graph->configurable_count()) * kLayoutConfigFeatureCount;
  if (width == 0 || values.size() % width != 0) {
    throw InternalError("predict_values: " + std::to_string(values.size()) + " values are not a whole number of configs of " +
                        std::to_string(width));
  }
  for (int8_t v : values) {
    if (v < -1 || v > 5) throw InternalError("predict_values: layout value " + std::to_string(v) + " outside -1..5");
  }
  std::unique_ptr<Scratch> scratch = take_scratch();
  std::vector<float> costs(values.size() / width);
  for (size_t c = 0; c < costs.size(); ++c) costs[c] = predict_one(values.data() + c * width, *scratch);
  give_back(std::move(scratch));
  return costs;
}

}  // namespace graphcost
