#include "tune/space_target.h"

#include <algorithm>
#include <cmath>

#include "common/input_error.h"

namespace graphcost {
namespace {

// Each config of `space` as its parameters' values, in the order of `names` (row-major).
std::vector<float> value_rows(const ParameterSpace& space, const std::vector<int>& order) {
  std::vector<float> rows;
  rows.reserve(space.configs.size() * order.size());
  for (int32_t c = 0; c < static_cast<int32_t>(space.configs.size()); ++c) {
    for (const int p : order) rows.push_back(static_cast<float>(space.numeric_value(c, p)));
  }
  return rows;
}

}  // namespace

TpuGraph space_as_graph(const ParameterSpace& space, const std::vector<float>* prior) {
  const size_t columns = space.parameters.size() + (prior != nullptr ? 1 : 0);
  if (columns > static_cast<size_t>(kTileConfigFeatureCount)) {
    throw InputError(space.source, "parameters",
                     "at most " + std::to_string(kTileConfigFeatureCount - (prior != nullptr ? 1 : 0)) + " parameters" +
                         (prior != nullptr ? " with a warm start" : ""),
                     std::to_string(space.parameters.size()));
  }
  TpuGraph graph;
  graph.kind = GraphKind::Tile;
  graph.source = space.source;
  graph.provenance = space.source + ": a parameter space (" + space.format + ")";
  graph.node_count = 1;
  graph.node_features.assign(kNodeFeatureCount, 0.0f);
  graph.node_opcodes.assign(1, 0);
  graph.config_count = static_cast<int32_t>(space.configs.size());
  graph.tile_config_features.assign(space.configs.size() * kTileConfigFeatureCount, 0.0f);
  graph.runtimes_hidden = !space.measured();
  for (int32_t c = 0; c < graph.config_count; ++c) {
    float* row = graph.tile_config_features.data() + static_cast<size_t>(c) * kTileConfigFeatureCount;
    for (size_t p = 0; p < space.parameters.size(); ++p) row[p] = static_cast<float>(space.numeric_value(c, static_cast<int>(p)));
    if (prior != nullptr) row[space.parameters.size()] = (*prior)[static_cast<size_t>(c)];
    const SpaceConfig& config = space.configs[static_cast<size_t>(c)];
    graph.config_runtime_ns.push_back(config.outcome == ConfigOutcome::Ok ? std::max<int64_t>(1, std::llround(config.seconds * 1e9)) : 0);
    graph.config_runtime_normalizers_ns.push_back(1);
  }
  return graph;
}

std::vector<float> warm_start_costs(const ParameterSpace& here, const ParameterSpace& other, const BoostedTreesOptions& options) {
  std::vector<int> order_here, order_other;
  for (size_t p = 0; p < here.parameters.size(); ++p) {
    size_t q = 0;
    while (q < other.parameters.size() && other.parameters[q].name != here.parameters[p].name) ++q;
    if (q == other.parameters.size() || other.parameters.size() != here.parameters.size()) {
      throw InputError(
          other.source, "parameters", "the parameters of " + here.source + " (the same kernel's space)",
          q == other.parameters.size() ? "no " + here.parameters[p].name : std::to_string(other.parameters.size()) + " parameters");
    }
    order_here.push_back(static_cast<int>(p));
    order_other.push_back(static_cast<int>(q));
  }
  std::vector<float> features, targets;
  std::vector<float> all_other = value_rows(other, order_other);
  const size_t width = order_other.size();
  // A parameter with string values is a position in its list: the other file's values placed by
  // this one's positions (by value; -1 for a value this space does not have).
  for (size_t k = 0; k < width; ++k) {
    const SpaceParameter& mine = here.parameters[static_cast<size_t>(order_here[k])];
    const SpaceParameter& theirs = other.parameters[static_cast<size_t>(order_other[k])];
    if (mine.numeric() && theirs.numeric()) continue;
    for (size_t c = 0; c < other.configs.size(); ++c) {
      const nlohmann::json& value = theirs.values[static_cast<size_t>(other.configs[c].value_index[static_cast<size_t>(order_other[k])])];
      if (mine.numeric()) {  // numbers here: the other's numbers as they are, its strings as none of them
        all_other[c * width + k] = value.is_number() ? value.get<float>() : value.is_boolean() ? (value.get<bool>() ? 1.0f : 0.0f) : -1.0f;
        continue;
      }
      const auto at = std::find(mine.values.begin(), mine.values.end(), value);
      all_other[c * width + k] = at == mine.values.end() ? -1.0f : static_cast<float>(at - mine.values.begin());
    }
  }
  for (size_t c = 0; c < other.configs.size(); ++c) {
    if (other.configs[c].outcome != ConfigOutcome::Ok) continue;
    features.insert(features.end(), all_other.begin() + static_cast<std::ptrdiff_t>(c * width),
                    all_other.begin() + static_cast<std::ptrdiff_t>((c + 1) * width));
    targets.push_back(static_cast<float>(std::log(other.configs[c].seconds)));
  }
  if (targets.size() < 2) throw InputError(other.source, "configs", "2 or more measured ok to start from", std::to_string(targets.size()));
  BoostedTrees trees;
  trees.fit(features, targets.size(), width, targets, options);
  return trees.predict(value_rows(here, order_here), here.configs.size());
}

}  // namespace graphcost
