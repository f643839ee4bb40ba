#include "model/architecture.h"

#include <algorithm>

#include "common/input_error.h"
#include "data/node_features.h"
#include "data/opcodes.h"

namespace graphcost {
namespace {

int get_int(const nlohmann::json& json, const char* key, int low, int high) {
  if (!json.contains(key) || !json[key].is_number_integer()) {
    throw InputError("", std::string("model config.") + key, "an integer", json.contains(key) ? json[key].dump() : "missing");
  }
  const int64_t wide = json[key].get<int64_t>();
  const int value = static_cast<int>(std::max<int64_t>(std::min<int64_t>(wide, high + int64_t(1)), low - int64_t(1)));
  if (wide < low || wide > high) {
    throw InputError("", std::string("model config.") + key, "a value in [" + std::to_string(low) + ", " + std::to_string(high) + "]",
                     json[key].dump());
  }
  return value;
}

}  // namespace

const NameTable<nn::Aggregation>& aggregation_names() {
  static const NameTable<nn::Aggregation> names = {
      {"sum", nn::Aggregation::Sum}, {"mean", nn::Aggregation::Mean}, {"max", nn::Aggregation::Max}};
  return names;
}

int layout_value_rows(const ModelConfig& config) { return config.relative_configs ? kLayoutValueCount + 1 : kLayoutValueCount; }

nlohmann::json ModelConfig::to_json() const {
  nlohmann::json json = {{"kind", graph_kind_name(kind)},
                         {"collection", collection},
                         {"opcode_embedding", opcode_embedding},
                         {"config_embedding", config_embedding},
                         {"hidden", hidden},
                         {"layers", layers},
                         {"hops", hops},
                         {"cross_config_attention", cross_config_attention},
                         {"relative_configs", relative_configs},
                         {"seed", seed}};
  // Mean models are written as before (readers that predate the field read them unchanged).
  if (aggregation != nn::Aggregation::Mean) json["aggregation"] = name_of(aggregation_names(), aggregation);
  return json;
}

ModelConfig ModelConfig::from_json(const nlohmann::json& json) {
  ModelConfig config;
  if (!json.contains("kind") || !json["kind"].is_string()) {
    throw InputError("", "model config.kind", "\"tile\" or \"layout\"", json.contains("kind") ? json["kind"].dump() : "missing");
  }
  config.kind = value_named(graph_kind_names(), json["kind"].get<std::string>(), "model config.kind");
  config.collection = json.value("collection", "");
  config.opcode_embedding = get_int(json, "opcode_embedding", 1, 1024);
  config.config_embedding = get_int(json, "config_embedding", 1, 64);
  config.hidden = get_int(json, "hidden", 1, 4096);
  config.layers = get_int(json, "layers", 0, 64);
  config.hops = get_int(json, "hops", -1, 64);
  if (json.contains("cross_config_attention") && !json["cross_config_attention"].is_boolean()) {
    throw InputError("", "model config.cross_config_attention", "true or false", json["cross_config_attention"].dump());
  }
  config.cross_config_attention = json.value("cross_config_attention", false);  // absent in older files
  if (json.contains("relative_configs") && !json["relative_configs"].is_boolean()) {
    throw InputError("", "model config.relative_configs", "true or false", json["relative_configs"].dump());
  }
  config.relative_configs = json.value("relative_configs", false);  // absent in older files
  if (json.contains("aggregation")) {
    if (!json["aggregation"].is_string())
      throw InputError("", "model config.aggregation", "\"mean\" or \"max\"", json["aggregation"].dump());
    config.aggregation = value_named(aggregation_names(), json["aggregation"].get<std::string>(), "model config.aggregation");
  }
  config.seed = json.value("seed", uint64_t(0));
  return config;
}

void ModelConfig::check(const std::string& where) const {
  const auto in_range = [&](const char* field, int value, int low, int high) {
    if (value < low || value > high)
      throw InputError(where, field, "an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]", std::to_string(value));
  };
  in_range("opcode_embedding", opcode_embedding, 1, 1024);
  in_range("config_embedding", config_embedding, 1, 64);
  in_range("hidden", hidden, 1, 4096);
  in_range("layers", layers, 0, 64);
  in_range("hops", hops, -1, 64);
}

bool Architecture::couples_configs() const {
  return std::any_of(layers.begin(), layers.end(), [](const MessageLayerSpec& layer) { return layer.attention; });
}

bool Architecture::linear_messages() const {
  return std::all_of(layers.begin(), layers.end(), [](const MessageLayerSpec& layer) { return nn::is_linear(layer.aggregation); });
}

Architecture describe_architecture(const ModelConfig& config) {
  Architecture a;
  const int64_t h = config.hidden;
  a.hidden = config.hidden;
  a.input.node_columns = config.opcode_embedding + kNodeFeatureCount;
  a.input.config_columns = config.kind == GraphKind::Tile ? kTileConfigFeatureCount : kLayoutConfigFeatureCount * config.config_embedding;
  a.input.opcode_embedding = "opcode_embedding";
  a.input.weight = "input.weight";
  a.input.bias = "input.bias";
  a.parameters.push_back({a.input.opcode_embedding, kOpcodeCount, config.opcode_embedding, ParameterInit::Embedding});
  if (config.kind == GraphKind::Layout) {
    a.input.layout_value_embedding = "layout_value_embedding";
    a.parameters.push_back({a.input.layout_value_embedding, layout_value_rows(config), config.config_embedding, ParameterInit::Embedding});
  }
  a.parameters.push_back({a.input.weight, a.input.node_columns + a.input.config_columns, h, ParameterInit::Weight});
  a.parameters.push_back({a.input.bias, 1, h, ParameterInit::Zero});
  for (int l = 0; l < config.layers; ++l) {
    const std::string prefix = "sage" + std::to_string(l) + ".";
    MessageLayerSpec layer;
    layer.aggregation = config.aggregation;
    layer.self = prefix + "self";
    layer.producers = prefix + "producers";
    layer.consumers = prefix + "consumers";
    layer.bias = prefix + "bias";
    layer.norm_gain = prefix + "norm.gain";
    layer.norm_bias = prefix + "norm.bias";
    for (const std::string* name : {&layer.self, &layer.producers, &layer.consumers})
      a.parameters.push_back({*name, h, h, ParameterInit::Weight});
    a.parameters.push_back({layer.bias, 1, h, ParameterInit::Zero});
    a.parameters.push_back({layer.norm_gain, 1, h, ParameterInit::One});
    a.parameters.push_back({layer.norm_bias, 1, h, ParameterInit::Zero});
    if (config.cross_config_attention) {
      layer.attention = true;
      layer.attention_weight = prefix + "attention.weight";
      layer.attention_inverse_temperature = prefix + "attention.inverse_temperature";
      a.parameters.push_back({layer.attention_weight, 2 * h, h, ParameterInit::Weight});
      a.parameters.push_back({layer.attention_inverse_temperature, 1, 1, ParameterInit::Temperature});
    }
    a.layers.push_back(std::move(layer));
  }
  a.head = {"head.weight", "head.bias", "out.weight", "out.bias"};
  a.parameters.push_back({a.head.weight, 2 * h, h, ParameterInit::Weight});
  a.parameters.push_back({a.head.bias, 1, h, ParameterInit::Zero});
  a.parameters.push_back({a.head.out_weight, h, 1, ParameterInit::Weight});
  a.parameters.push_back({a.head.out_bias, 1, 1, ParameterInit::Zero});
  return a;
}

std::vector<std::tuple<std::string, int64_t, int64_t>> parameter_shapes(const ModelConfig& config) {
  std::vector<std::tuple<std::string, int64_t, int64_t>> shapes;
  for (const ParameterSpec& p : describe_architecture(config).parameters) shapes.emplace_back(p.name, p.rows, p.cols);
  return shapes;
}

}  // namespace graphcost
