#include "train/checkpoint.h"

#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "io/npz_file.h"

namespace graphcost {

void save_checkpoint(CostModel& model, nn::Adam& adam, int epoch, const std::map<int, std::string>& samplers, int shards, bool balanced,
                     const std::string& path) {
  nlohmann::json state = {{"epoch", epoch}, {"adam_steps", adam.steps_taken()}};
  if (shards == 1) {
    state["sampler"] = samplers.at(0);
  } else {
    state["shards"] = shards;
    state["balanced"] = balanced;  // the draws (and the files' dealing) the samplers belong to
    for (const auto& [shard, text] : samplers) state["samplers"][std::to_string(shard)] = text;
  }
  const std::string text = state.dump();
  std::vector<std::pair<std::string, NpyArray>> extra;
  extra.emplace_back("train_state_json",
                     NpyArray::from_values<uint8_t>({static_cast<int64_t>(text.size())}, std::vector<uint8_t>(text.begin(), text.end())));
  const std::vector<nn::Parameter*> parameters = model.parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    for (const auto& [prefix, moments] : {std::make_pair("m", &adam.first_moments()), std::make_pair("v", &adam.second_moments())}) {
      const nn::Matrix& moment = (*moments)[i];
      extra.emplace_back(
          std::string("train_state/") + prefix + "/" + parameters[i]->name,
          NpyArray::from_values<float>({moment.rows(), moment.cols()}, std::vector<float>(moment.data(), moment.data() + moment.size())));
    }
  }
  model.save(path, extra);
}

RestoredState restore_checkpoint(CostModel& model, nn::Adam& adam, std::map<int, std::mt19937_64>& shards, int shard_count, bool balanced,
                                 const std::string& path) {
  const NpzFile npz = read_npz_file(path);
  const NpyArray* state_array = npz.find("train_state_json");
  if (state_array == nullptr)
    throw InputError(path, "train_state_json", "a training checkpoint (written by graphcost train)", "a model file without training state");
  const std::vector<uint8_t> bytes = state_array->to_vector<uint8_t>(path, "train_state_json");
  const nlohmann::json state = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  const bool one_sampler = state.is_object() && state.contains("sampler") && state["sampler"].is_string();
  const bool many_samplers = state.is_object() && state.contains("samplers") && state["samplers"].is_object() && state.contains("shards") &&
                             state["shards"].is_number_integer();
  if (state.is_discarded() || !state.is_object() || !state.contains("epoch") || !state["epoch"].is_number_integer() ||
      !state.contains("adam_steps") || !state["adam_steps"].is_number_integer() || (!one_sampler && !many_samplers)) {
    throw InputError(path, "train_state_json", "{epoch, adam_steps, sampler or shards + samplers}",
                     bytes.size() > 80 ? "other JSON" : std::string(bytes.begin(), bytes.end()));
  }
  const std::vector<nn::Parameter*> parameters = model.parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    for (const auto& [prefix, moments] : {std::make_pair("m", &adam.first_moments()), std::make_pair("v", &adam.second_moments())}) {
      const std::string name = std::string("train_state/") + prefix + "/" + parameters[i]->name;
      const NpyArray* array = npz.find(name);
      nn::Matrix& moment = (*moments)[i];
      if (array == nullptr || array->shape() != std::vector<int64_t>{moment.rows(), moment.cols()}) {
        throw InputError(path, name, "shape (" + std::to_string(moment.rows()) + ", " + std::to_string(moment.cols()) + ")",
                         array == nullptr ? "missing" : "shape " + array->shape_text());
      }
      const std::vector<float> values = array->to_vector<float>(path, name);
      moment = Eigen::Map<const nn::Matrix>(values.data(), moment.rows(), moment.cols());
    }
  }
  RestoredState restored;
  restored.epoch = state["epoch"].get<int>();
  const int saved_shards = one_sampler ? 1 : state["shards"].get<int>();
  // Checkpoints from before balanced draws have no "balanced": their shards drew independently.
  const bool saved_balanced = !one_sampler && state.contains("balanced") && state["balanced"].is_boolean() && state["balanced"].get<bool>();
  if (saved_shards == shard_count && (shard_count == 1 || saved_balanced == balanced)) {
    for (auto& [shard, sampler] : shards) {
      const std::string key = std::to_string(shard);
      if (!one_sampler && !state["samplers"].contains(key)) {
        throw InputError(path, "train_state_json.samplers", "a state for shard " + key, "none");
      }
      std::istringstream sampler_text(one_sampler ? state["sampler"].get<std::string>() : state["samplers"][key].get<std::string>());
      sampler_text >> sampler;
      if (!sampler_text) throw InputError(path, "train_state_json.sampler", "a mt19937_64 state", "unreadable text");
    }
    restored.samplers_restored = true;
  }
  adam.set_steps_taken(state["adam_steps"].get<int>());
  return restored;
}

}  // namespace graphcost
