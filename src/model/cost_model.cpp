#include "model/cost_model.h"

#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "data/graph_summary.h"
#include "data/node_features.h"
#include "data/opcodes.h"
#include "io/npz_file.h"
#include "model/layout_inference.h"
#include "nn/ops.h"

namespace graphcost {
namespace {

// Version 1: every model before the aggregation option; 2: a model whose "aggregation" is not
// mean (older readers, which know only 1, refuse it instead of reading it as a mean model).
constexpr int kFormatVersion = 1, kAggregationFormatVersion = 2;

// Trained weights stay far below this; larger ones (or NaN, Inf) would make every cost NaN or
// infinite, and a ranking of NaNs is the identity order.
constexpr float kMaxParameterMagnitude = 1e6f;

}  // namespace

std::vector<float> changed_mask(const std::vector<int8_t>& usual_values, const std::vector<int32_t>& ids) {
  if (ids.size() != usual_values.size()) {
    throw InternalError("changed_mask: " + std::to_string(ids.size()) + " ids for " + std::to_string(usual_values.size()) +
                        " usual values");
  }
  std::vector<float> mask(ids.size(), 0.0f);
  for (size_t first = 0; first < ids.size(); first += kLayoutConfigFeatureCount) {
    bool changed = false;
    for (size_t k = first; k < first + kLayoutConfigFeatureCount; ++k) changed |= ids[k] - 1 != usual_values[k];
    if (changed) {
      std::fill(mask.begin() + static_cast<std::ptrdiff_t>(first),
                mask.begin() + static_cast<std::ptrdiff_t>(first + kLayoutConfigFeatureCount), 1.0f);
    }
  }
  return mask;
}

CostModel::CostModel(ModelConfig config, FeatureStatistics statistics)
    : config_(std::move(config)), statistics_(std::move(statistics)), architecture_(describe_architecture(config_)) {
  for (const ParameterSpec& spec : architecture_.parameters) {
    // Uniform draws scaled by the init (a zero scale still draws: the seeds stay by position).
    const float scale = spec.init == ParameterInit::Embedding ? 1.0f
                        : spec.init == ParameterInit::Zero    ? 0.0f
                                                              : 1.0f / std::sqrt(static_cast<float>(spec.rows));
    nn::Parameter& parameter = add_parameter(spec.name, static_cast<int>(spec.rows), static_cast<int>(spec.cols), scale);
    if (spec.init == ParameterInit::One) parameter.value.setOnes();
    if (spec.init == ParameterInit::Temperature) parameter.value.setConstant(2.0f);  // T = 0.5
  }
}

nn::Parameter& CostModel::add_parameter(const std::string& name, int rows, int cols, float scale) {
  // Deterministic init from the seed and the parameter's position (uniform in +-scale*sqrt(3)).
  std::mt19937_64 random(config_.seed * 1000003u + parameters_.size());
  nn::Matrix value(rows, cols);
  for (Eigen::Index i = 0; i < value.size(); ++i) {
    const double u = static_cast<double>(random() >> 11) * 0x1.0p-53;
    value.data()[i] = static_cast<float>((2 * u - 1) * std::sqrt(3.0) * scale);
  }
  parameters_.push_back(std::make_unique<nn::Parameter>(name, value));
  return *parameters_.back();
}

nn::Parameter& CostModel::find(const std::string& name) { return const_cast<nn::Parameter&>(parameter(name)); }

const nn::Parameter& CostModel::parameter(const std::string& name) const {
  for (const auto& p : parameters_) {
    if (p->name == name) return *p;
  }
  throw InternalError("no parameter " + name);
}

CostModel CostModel::clone() const {
  CostModel copy(config_, statistics_);
  for (size_t i = 0; i < parameters_.size(); ++i) copy.parameters_[i]->value = parameters_[i]->value;
  copy.calibration_ = calibration_;
  return copy;
}

std::vector<nn::Parameter*> CostModel::parameters() {
  std::vector<nn::Parameter*> out;
  for (auto& p : parameters_) out.push_back(p.get());
  return out;
}

size_t CostModel::parameter_count() const {
  size_t total = 0;
  for (const auto& p : parameters_) total += static_cast<size_t>(p->value.size());
  return total;
}

PreparedGraph CostModel::prepare(const TpuGraph& graph) const {
  PreparedGraph prepared;
  prepared.graph = &graph;
  prepared.view = make_graph_view(graph, config_.kind == GraphKind::Layout ? config_.hops : -1);
  prepared.node_features = encode_node_features(graph, prepared.view, statistics_);
  if (graph.kind == GraphKind::Tile) prepared.tile_configs = encode_tile_configs(graph, statistics_);
  // The most common row over the graph's configs (a store-backed graph has none in memory:
  // fit_model refuses relative_configs models over a store).
  if (graph.kind == GraphKind::Layout && config_.relative_configs) prepared.usual_values = most_common_layout_values(graph);
  return prepared;
}

PreparedGraph restrict_prepared(const PreparedGraph& prepared, const std::vector<int32_t>& kept) {
  PreparedGraph sub;
  sub.graph = prepared.graph;
  sub.view = induced_view(prepared.view, kept);
  sub.node_features.resize(static_cast<Eigen::Index>(kept.size()), prepared.node_features.cols());
  for (size_t i = 0; i < kept.size(); ++i) sub.node_features.row(static_cast<Eigen::Index>(i)) = prepared.node_features.row(kept[i]);
  sub.tile_configs = prepared.tile_configs;
  sub.usual_values = prepared.usual_values;
  return sub;
}

nn::Var CostModel::forward(nn::Tape& tape, const PreparedGraph& prepared, const std::vector<int32_t>& configs) {
  return head(tape, node_sums(tape, prepared, configs), prepared.view.size());
}

nn::Var CostModel::head(nn::Tape& tape, nn::Var node_sum, double node_count) {
  using namespace nn;
  const Var pooled = concat_columns({node_sum, scale(node_sum, static_cast<float>(1.0 / std::max(1.0, node_count)))});
  const HeadSpec& spec = architecture_.head;
  const Var hidden = gelu(add_row(matmul(pooled, tape.parameter(find(spec.weight))), tape.parameter(find(spec.bias))));
  return add_row(matmul(hidden, tape.parameter(find(spec.out_weight))), tape.parameter(find(spec.out_bias)));
}

CostModel::LayoutBatch CostModel::layout_batch(const PreparedGraph& prepared, const std::vector<int32_t>& configs) const {
  const TpuGraph& graph = *prepared.graph;
  const GraphView& view = prepared.view;
  LayoutBatch batch;
  for (int32_t config : configs) {
    const std::vector<int32_t> values = layout_config_ids(graph, config);
    const std::vector<float> mask = config_.relative_configs ? changed_mask(prepared.usual_values, values) : std::vector<float>();
    std::vector<int32_t>& ids = batch.ids.emplace_back();
    std::vector<float>& changed = batch.changed.emplace_back();
    auto take = [&](size_t slot) {
      const auto first = static_cast<std::ptrdiff_t>(slot * kLayoutConfigFeatureCount), last = first + kLayoutConfigFeatureCount;
      ids.insert(ids.end(), values.begin() + first, values.begin() + last);
      if (!mask.empty()) changed.insert(changed.end(), mask.begin() + first, mask.begin() + last);
    };
    if (view.configurable_slot.empty()) {
      for (size_t slot = 0; slot < view.configurable.size(); ++slot) take(slot);
    } else {
      for (int32_t slot : view.configurable_slot) take(static_cast<size_t>(slot));
    }
  }
  return batch;
}

nn::Var CostModel::layout_config_term(nn::Tape& tape, const std::vector<int32_t>& ids, const std::vector<float>& changed, nn::Var weight) {
  using namespace nn;
  const Var value_table = tape.parameter(find(architecture_.input.layout_value_embedding));
  Var embedded = embedding(value_table, ids);  // (rows*18) x e
  if (config_.relative_configs) {
    // Changed nodes add the "changed" row to each of their embedded values: mask (rows*18 x 1)
    // times that row (1 x e).
    const Matrix mask = Eigen::Map<const Matrix>(changed.data(), static_cast<Eigen::Index>(changed.size()), 1);
    embedded = add(embedded, matmul(tape.constant(mask), slice_rows(value_table, kChangedRow, 1)));
  }
  const Var per_node = reshape(embedded, static_cast<Eigen::Index>(ids.size() / kLayoutConfigFeatureCount),
                               kLayoutConfigFeatureCount * config_.config_embedding);
  return matmul(per_node, weight);
}

CostModel::InputLayer CostModel::input_layer(nn::Tape& tape, const PreparedGraph& prepared) {
  using namespace nn;
  const TpuGraph& graph = *prepared.graph;
  const GraphView& view = prepared.view;
  std::vector<int32_t> opcodes(static_cast<size_t>(view.size()));
  for (int32_t v = 0; v < view.size(); ++v)
    opcodes[static_cast<size_t>(v)] = graph.node_opcodes[static_cast<size_t>(view.nodes[static_cast<size_t>(v)])];
  // The input layer, split by rows of input.weight (the same function as one product of the
  // concatenated input, with less work): the node part [opcode embedding | features] times its
  // rows once per graph; the config part times the remaining rows, per row that has one.
  const Var node_part = concat_columns(
      {embedding(tape.parameter(find(architecture_.input.opcode_embedding)), opcodes), tape.constant(prepared.node_features)});
  const Var input_weight = tape.parameter(find(architecture_.input.weight));
  const Eigen::Index node_columns = node_part.cols();
  return {matmul(node_part, slice_rows(input_weight, 0, node_columns)),
          slice_rows(input_weight, node_columns, input_weight.rows() - node_columns)};
}

DistinctRows CostModel::distinct_rows(const PreparedGraph& prepared, const std::vector<int32_t>& configs) const {
  return plan_distinct_rows(prepared.view, layout_batch(prepared, configs).ids, kLayoutConfigFeatureCount, config_.layers);
}

nn::Var CostModel::node_sums(nn::Tape& tape, const PreparedGraph& prepared, const std::vector<int32_t>& configs) {
  using namespace nn;
  // Cross-config attention mixes every (config, node) row with the others of its node, and a tile
  // config changes every row: both run on all rows.
  if (config_.kind != GraphKind::Layout || architecture_.couples_configs())
    return segment_pool(node_states(tape, prepared, configs), prepared.view.size(), Pool::Sum);
  // Layout: each distinct row of each layer once (model/distinct_rows.h), the same values as
  // node_states' rows. Rows are grouped by the node's values alone: relative_configs' changed mask
  // is a function of them (changed_mask compares a node's 18 values with its usual ones).
  const LayoutBatch batch = layout_batch(prepared, configs);
  DistinctRows plan = plan_distinct_rows(prepared.view, batch.ids, kLayoutConfigFeatureCount, config_.layers);
  std::vector<int32_t> ids, target_rows;
  std::vector<float> changed;
  for (const DistinctRows::ConfigPart& part : plan.config_parts) {
    const auto first = static_cast<std::ptrdiff_t>(part.slot) * kLayoutConfigFeatureCount, last = first + kLayoutConfigFeatureCount;
    const std::vector<int32_t>& values = batch.ids[static_cast<size_t>(part.config)];
    ids.insert(ids.end(), values.begin() + first, values.begin() + last);
    if (config_.relative_configs) {
      const std::vector<float>& mask = batch.changed[static_cast<size_t>(part.config)];
      changed.insert(changed.end(), mask.begin() + first, mask.begin() + last);
    }
    target_rows.push_back(part.row);
  }
  const InputLayer input = input_layer(tape, prepared);
  Var h =
      gelu_of_gathered_and_sparse(input.node_term, std::move(plan.input_nodes), layout_config_term(tape, ids, changed, input.config_weight),
                                  target_rows, tape.parameter(find(architecture_.input.bias)));
  for (size_t l = 0; l < architecture_.layers.size(); ++l) {
    const MessageLayerSpec& layer = architecture_.layers[l];
    const std::shared_ptr<const RowSources>& sources = plan.layers[l];
    const Var updated = sage_message(h, sources, layer.aggregation, tape.parameter(find(layer.self)), tape.parameter(find(layer.producers)),
                                     tape.parameter(find(layer.consumers)), tape.parameter(find(layer.bias)));
    h = add_layer_norm(h, sources->self, updated, tape.parameter(find(layer.norm_gain)), tape.parameter(find(layer.norm_bias)));
  }
  return pool_rows(h, std::move(plan.final_rows), static_cast<int>(configs.size()));
}

nn::Var CostModel::node_states(nn::Tape& tape, const PreparedGraph& prepared, const std::vector<int32_t>& configs) {
  using namespace nn;
  const GraphView& view = prepared.view;
  const int batch = static_cast<int>(configs.size());
  const Eigen::Index nodes = view.size();
  const InputLayer input = input_layer(tape, prepared);
  // The config part: tile graphs per (config, node) row, layout graphs only at the configurable
  // nodes' rows (everywhere else it is zero).
  Var config_term;                   // rows of the config part of the input layer...
  std::vector<int32_t> target_rows;  // ...and the (config, node) row each is added to
  if (config_.kind == GraphKind::Tile) {
    Matrix rows(static_cast<Eigen::Index>(batch) * nodes, kTileConfigFeatureCount);
    for (int b = 0; b < batch; ++b)
      rows.middleRows(b * nodes, nodes).rowwise() = prepared.tile_configs.row(configs[static_cast<size_t>(b)]);
    config_term = matmul(tape.constant(std::move(rows)), input.config_weight);
    target_rows.resize(static_cast<size_t>(batch * nodes));
    std::iota(target_rows.begin(), target_rows.end(), 0);
  } else {
    const LayoutBatch values = layout_batch(prepared, configs);
    std::vector<int32_t> ids;
    std::vector<float> changed;
    for (int b = 0; b < batch; ++b) {
      ids.insert(ids.end(), values.ids[static_cast<size_t>(b)].begin(), values.ids[static_cast<size_t>(b)].end());
      changed.insert(changed.end(), values.changed[static_cast<size_t>(b)].begin(), values.changed[static_cast<size_t>(b)].end());
      for (int32_t v : view.configurable) target_rows.push_back(static_cast<int32_t>(b * nodes + v));
    }
    config_term = layout_config_term(tape, ids, changed, input.config_weight);
  }
  // Fused ops (nn/ops.h): gelu(repeat(node term) + scattered config term + bias), then per layer
  // gelu([h | producer means | consumer means] W + b) and h + layer_norm(...), each one pass over
  // the batch's rows instead of one per elementary op.
  Var h = gelu_of_shared_and_sparse(input.node_term, batch, config_term, target_rows, tape.parameter(find(architecture_.input.bias)));
  for (const MessageLayerSpec& layer : architecture_.layers) {
    Var updated =
        sage_message(h, view.producers, view.consumers, layer.aggregation, tape.parameter(find(layer.self)),
                     tape.parameter(find(layer.producers)), tape.parameter(find(layer.consumers)), tape.parameter(find(layer.bias)));
    if (layer.attention) {
      const Var weights = group_softmax(scale_by(updated, tape.parameter(find(layer.attention_inverse_temperature))), batch);
      updated = matmul(concat_columns({updated, mul(updated, weights)}), tape.parameter(find(layer.attention_weight)));
    }
    h = add_layer_norm(h, updated, tape.parameter(find(layer.norm_gain)), tape.parameter(find(layer.norm_bias)));
  }
  return h;
}

std::vector<float> CostModel::predict(const PreparedGraph& prepared, int batch, int threads) {
  std::vector<int32_t> configs(static_cast<size_t>(prepared.graph->config_count));
  for (int32_t c = 0; c < prepared.graph->config_count; ++c) configs[static_cast<size_t>(c)] = c;
  return predict(prepared, configs, batch, threads);
}

std::vector<float> CostModel::predict(const PreparedGraph& prepared, const std::vector<int32_t>& configs, int batch, int threads) {
  if (config_.kind == GraphKind::Layout && prepared.graph->kind == GraphKind::Layout && !couples_configs()) {
    // Identical configs (common in TpuGraphs) are predicted once and copied.
    const DistinctConfigs groups = group_identical_configs(*prepared.graph, configs);
    const std::vector<float> distinct_costs = LayoutInference(*this, prepared).predict(groups.distinct, threads);
    std::vector<float> costs(configs.size());
    for (size_t i = 0; i < configs.size(); ++i) costs[i] = distinct_costs[static_cast<size_t>(groups.slot[i])];
    return costs;
  }
  // Chunks of `batch` configs, fewer on big graphs (a chunk's activations are configs x nodes
  // rows); attention models always use kAttentionChunk, the batch their predictions assume.
  const int64_t rows_budget = int64_t(1) << 18;
  const size_t chunk_size = couples_configs()
                                ? static_cast<size_t>(kAttentionChunk)
                                : static_cast<size_t>(std::max<int64_t>(
                                      1, std::min<int64_t>(std::max(1, batch), rows_budget / std::max(1, prepared.view.size()))));
  std::vector<float> costs;
  for (size_t start = 0; start < configs.size(); start += chunk_size) {
    const std::vector<int32_t> chunk(configs.begin() + static_cast<std::ptrdiff_t>(start),
                                     configs.begin() + static_cast<std::ptrdiff_t>(std::min(configs.size(), start + chunk_size)));
    nn::Tape tape;
    const nn::Var out = forward(tape, prepared, chunk);
    for (Eigen::Index i = 0; i < out.rows(); ++i) costs.push_back(out.value()(i, 0));
  }
  return costs;
}

SpeedupEstimate RuntimeCalibration::estimate_speedup(float cost_from, float cost_to, int64_t graph_nodes) const {
  SpeedupEstimate estimate;
  char text[300];
  const double gap = std::fabs(static_cast<double>(cost_from) - static_cast<double>(cost_to));
  if (!fitted()) {
    estimate.reason = "the model has no runtime calibration: its costs rank configs but are not times";
  } else if (!knows_its_range()) {
    estimate.reason = "the model's calibration predates recording where it holds: recalibrate it (graphcost calibrate)";
  } else if (graph_nodes > 2 * nodes_max || 2 * graph_nodes < nodes_min) {
    std::snprintf(text, sizeof text, "this graph (%lld nodes) is unlike the graphs the calibration was fitted on (%lld to %lld nodes)",
                  static_cast<long long>(graph_nodes), static_cast<long long>(nodes_min), static_cast<long long>(nodes_max));
    estimate.reason = text;
  } else if (gap > cost_range) {
    std::snprintf(text, sizeof text,
                  "these configs' predicted costs are %.3g apart, more than any two the calibration saw in one graph (%.3g): "
                  "a speedup would be an extrapolation",
                  gap, cost_range);
    estimate.reason = text;
  } else {
    estimate.value = predicted_speedup(cost_from, cost_to);
    estimate.low = estimate.value * std::exp(-interval_half_width());
    estimate.high = estimate.value * std::exp(interval_half_width());
    // A figure whose own 95% interval is wider than half to twice itself says little: none is given.
    estimate.supported = !too_wide_for_figures();
    if (!estimate.supported) {
      std::snprintf(text, sizeof text,
                    "the calibration's residuals are too wide to state a figure (%.3gx, but anywhere from %.3gx to %.3gx at 95%%)",
                    estimate.value, estimate.low, estimate.high);
      estimate.reason = text;
    }
  }
  return estimate;
}

void CostModel::save(const std::string& path) const { save(path, {}); }

void CostModel::save(const std::string& path, const std::vector<std::pair<std::string, NpyArray>>& extra) const {
  nlohmann::json meta = {{"format", "graphcost-model"},
                         {"version", config_.aggregation == nn::Aggregation::Mean ? kFormatVersion : kAggregationFormatVersion},
                         {"config", config_.to_json()},
                         {"feature_statistics", statistics_.to_json()}};
  if (calibration_.fitted()) {
    meta["calibration"] = {{"log_runtime_per_score", calibration_.log_runtime_per_score},
                           {"r2", calibration_.r2},
                           {"configs", calibration_.configs},
                           {"graphs", calibration_.graphs}};
    if (calibration_.knows_its_range()) {
      meta["calibration"]["cost_range"] = calibration_.cost_range;
      meta["calibration"]["residual_sd"] = calibration_.residual_sd;
      meta["calibration"]["nodes"] = {calibration_.nodes_min, calibration_.nodes_max};
    }
  }
  const std::string text = meta.dump();
  std::vector<std::pair<std::string, NpyArray>> arrays;
  arrays.emplace_back("model_json",
                      NpyArray::from_values<uint8_t>({static_cast<int64_t>(text.size())}, std::vector<uint8_t>(text.begin(), text.end())));
  for (const auto& p : parameters_) {
    std::vector<float> values(p->value.data(), p->value.data() + p->value.size());
    arrays.emplace_back("param/" + p->name, NpyArray::from_values<float>({p->value.rows(), p->value.cols()}, values));
  }
  std::vector<std::pair<std::string, const NpyArray*>> named;
  for (const auto& [name, array] : arrays) named.emplace_back(name, &array);
  for (const auto& [name, array] : extra) named.emplace_back(name, &array);
  write_npz(path, named, ZipCompression::Deflate);
}

CostModel CostModel::load(const std::string& path) { return load(ByteSource::open_file(path)); }

CostModel CostModel::load(const ByteSource& source) {
  const std::string& path = source.name();
  NpzReadOptions meta_only;
  meta_only.only = {"model_json"};
  const NpzFile meta_npz = read_npz(source, meta_only);
  try {
    const NpyArray* meta_array = meta_npz.find("model_json");
    if (meta_array == nullptr) throw InputError("", "model_json", "a graphcost model file", "no model_json member");
    const std::vector<uint8_t> bytes = meta_array->to_vector<uint8_t>(path, "model_json");
    const nlohmann::json meta = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (meta.is_discarded() || !meta.is_object()) throw InputError("", "model_json", "a JSON object", "unparsable text");
    if (meta.value("format", "") != "graphcost-model")
      throw InputError("", "model_json.format", "\"graphcost-model\"", meta.value("format", "missing"));
    const int version = meta.value("version", 0);
    if (version != kFormatVersion && version != kAggregationFormatVersion) {
      throw InputError("", "model_json.version", std::to_string(kFormatVersion) + " or " + std::to_string(kAggregationFormatVersion),
                       std::to_string(version));
    }
    const ModelConfig config = ModelConfig::from_json(meta.at("config"));
    // Only the parameters the config implies are inflated, each after its npy header shows the
    // shape the config gives it: neither a few bytes of JSON nor a member's header can demand
    // gigabytes, and members the model does not use (a checkpoint's state) stay compressed.
    NpzReadOptions parameters_only;
    std::map<std::string, std::pair<int64_t, int64_t>> expected;
    for (const auto& [name, rows, cols] : parameter_shapes(config)) {
      parameters_only.only.push_back("param/" + name);
      expected["param/" + name] = {rows, cols};
    }
    parameters_only.check_header = [&](const std::string& name, const NpyHeader& header) {
      const auto& [rows, cols] = expected.at(name);
      if (header.shape != std::vector<int64_t>{rows, cols}) {
        throw InputError("", name, "shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")",
                         "shape " + shape_text(header.shape) + " in its npy header");
      }
    };
    const NpzFile npz = read_npz(source, parameters_only);
    for (const auto& [name, rows, cols] : parameter_shapes(config)) {
      const NpyArray* array = npz.find("param/" + name);
      if (array == nullptr) throw InputError("", "param/" + name, "present", "missing");
      if (array->shape() != std::vector<int64_t>{rows, cols}) {
        throw InputError("", "param/" + name, "shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")",
                         "shape " + array->shape_text());
      }
    }
    CostModel model(config, FeatureStatistics::from_json(meta.at("feature_statistics")));
    if (meta.contains("calibration")) {  // optional: files from before it, or never calibrated
      const nlohmann::json& calibration = meta.at("calibration");
      RuntimeCalibration& c = model.calibration_;
      c.log_runtime_per_score = calibration.at("log_runtime_per_score").get<double>();
      c.r2 = calibration.at("r2").get<double>();
      c.configs = calibration.at("configs").get<int64_t>();
      c.graphs = calibration.at("graphs").get<int64_t>();
      if (!std::isfinite(c.log_runtime_per_score) || c.log_runtime_per_score <= 0 || c.log_runtime_per_score > 1e6) {
        throw InputError("", "model_json.calibration.log_runtime_per_score", "a finite number in (0, 1e6]",
                         std::to_string(c.log_runtime_per_score));
      }
      if (!(c.r2 >= 0 && c.r2 <= 1)) throw InputError("", "model_json.calibration.r2", "a number in [0, 1]", std::to_string(c.r2));
      if (c.configs < 2 || c.graphs < 1) {
        throw InputError("", "model_json.calibration.configs", "at least 2 configs in at least 1 graph",
                         std::to_string(c.configs) + " configs in " + std::to_string(c.graphs) + " graphs");
      }
      if (calibration.contains("cost_range")) {  // optional: calibrations before graphcost recorded their range
        c.cost_range = calibration.at("cost_range").get<double>();
        c.residual_sd = calibration.at("residual_sd").get<double>();
        const nlohmann::json& nodes = calibration.at("nodes");
        if (!nodes.is_array() || nodes.size() != 2)
          throw InputError("", "model_json.calibration.nodes", "[smallest, largest]", nodes.dump());
        c.nodes_min = nodes[0].get<int64_t>(), c.nodes_max = nodes[1].get<int64_t>();
        if (!std::isfinite(c.cost_range) || c.cost_range <= 0)
          throw InputError("", "model_json.calibration.cost_range", "a positive number", std::to_string(c.cost_range));
        if (!std::isfinite(c.residual_sd) || c.residual_sd < 0)
          throw InputError("", "model_json.calibration.residual_sd", "a number >= 0", std::to_string(c.residual_sd));
        if (c.nodes_min < 1 || c.nodes_max < c.nodes_min)
          throw InputError("", "model_json.calibration.nodes", "1 <= smallest <= largest", nodes.dump());
      }
    }
    for (auto& p : model.parameters_) {
      const NpyArray* array = npz.find("param/" + p->name);
      if (array == nullptr) throw InputError("", "param/" + p->name, "present", "missing");
      if (array->shape() != std::vector<int64_t>{p->value.rows(), p->value.cols()}) {
        throw InputError("", "param/" + p->name, "shape (" + std::to_string(p->value.rows()) + ", " + std::to_string(p->value.cols()) + ")",
                         "shape " + array->shape_text());
      }
      const std::vector<float> values = array->to_vector<float>(path, "param/" + p->name);
      for (size_t i = 0; i < values.size(); ++i) {
        if (!(std::fabs(values[i]) <= kMaxParameterMagnitude)) {  // also NaN
          throw InputError("", "param/" + p->name,
                           "finite values of magnitude at most " + std::to_string(static_cast<int64_t>(kMaxParameterMagnitude)),
                           std::to_string(values[i]) + " at row " + std::to_string(i / static_cast<size_t>(p->value.cols())) + ", column " +
                               std::to_string(i % static_cast<size_t>(p->value.cols())));
        }
      }
      p->value = Eigen::Map<const nn::Matrix>(values.data(), p->value.rows(), p->value.cols());
    }
    return model;
  } catch (const InputError& error) {
    throw error.within(path, "");
  } catch (const nlohmann::json::exception& error) {
    throw InputError(path, "model_json", "the documented model JSON", error.what());
  }
}

}  // namespace graphcost
