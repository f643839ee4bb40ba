#include "tune/tuning_target.h"

#include <cstdio>

#include "common/input_error.h"
#include "data/opcodes.h"
#include "hlo/fusion_kernels.h"
#include "hlo/graph_file.h"
#include "hlo/hlo_import.h"
#include "hlo/module_file.h"
#include "tune/space_target.h"

namespace graphcost {
namespace {

// FNV-1a over the bytes that define the candidates.
uint64_t fnv(uint64_t hash, const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

std::string fingerprint_of(const TpuGraph& graph) {
  uint64_t hash = 14695981039346656037ull;
  hash = fnv(hash, graph.node_features.data(), graph.node_features.size() * sizeof(float));
  hash = fnv(hash, graph.layout_config_features.data(), graph.layout_config_features.size());
  hash = fnv(hash, graph.tile_config_features.data(), graph.tile_config_features.size() * sizeof(float));
  char text[96];
  std::snprintf(text, sizeof text, "%s:%d nodes:%d configs:%016llx", graph_kind_name(graph.kind), graph.node_count, graph.config_count,
                static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace

TuningTarget load_tuning_target(const std::string& path, int candidates, uint64_t seed, const std::string& warm_start,
                                const std::string& kernel) {
  TuningTarget target;
  target.path = path;
  if (candidates < 1) throw InputError(path, "candidates", "1 or more configs to choose from", std::to_string(candidates));
  if (!kernel.empty() && (is_parameter_space_file(path) || is_npz_file(path))) {
    throw InputError(path, "--kernel " + kernel, "a module (HLO text or proto) holding the instruction",
                     is_npz_file(path) ? "a TpuGraphs file" : "a parameter space");
  }
  if (is_parameter_space_file(path)) {
    auto space = std::make_shared<ParameterSpace>(load_parameter_space(path));
    if (!warm_start.empty()) {
      BoostedTreesOptions trees;
      trees.seed = seed;
      target.prior = warm_start_costs(*space, load_parameter_space(warm_start), trees);
    }
    target.graph = space_as_graph(*space, target.prior.empty() ? nullptr : &target.prior);
    target.space = std::move(space);
    if (target.graph.config_count < 2)
      throw InputError(path, "configs", "2 or more to choose among", std::to_string(target.graph.config_count));
    target.fingerprint = fingerprint_of(target.graph);
    return target;
  }
  if (!warm_start.empty()) {
    throw InputError(path, "warm_start", "a parameter space target (another GPU's measurements of the same space start it)",
                     "a graph target");
  }
  HloImportOptions options;
  options.random_configs = candidates;
  options.seed = seed;
  GraphFile file;
  if (kernel.empty()) {
    file = load_graph_file(path, options);
  } else {
    ModuleFileFormat format = ModuleFileFormat::HloText;
    const HloModule module = read_hlo_module(path, nullptr, &format);
    HloLayoutImport imported = import_module_layout(named_kernel(module, path, kernel), path, format, options);
    file.graph = std::move(imported.graph);
    file.graph.provenance = "the kernel of " + kernel + " of " + file.graph.provenance;
    file.module = std::move(imported.module);
    file.computation_first = std::move(imported.computation_first);
  }
  target.graph = std::move(file.graph);
  target.module = std::move(file.module);
  target.computation_first = std::move(file.computation_first);
  if (target.graph.config_count < 2) {
    throw InputError(path, "configs", "2 or more to choose among (a module with something configurable)",
                     std::to_string(target.graph.config_count));
  }
  target.fingerprint = fingerprint_of(target.graph);
  return target;
}

TuningTarget tuning_target_from_graph(TpuGraph graph, const std::string& label) {
  TuningTarget target;
  target.path = label;
  target.graph = std::move(graph);
  target.fingerprint = fingerprint_of(target.graph);
  return target;
}

nlohmann::json describe_config(const TuningTarget& target, int32_t config) {
  const TpuGraph& graph = target.graph;
  if (target.space) {  // a kernel's config: its parameters by name, as Kernel Tuner passes them
    return {{"config", config},
            {"kind", "space"},
            {"program", graph.source},
            {"parameters", nlohmann::json::parse(target.space->config_json(config).dump())}};
  }
  nlohmann::json out = {{"config", config}, {"kind", graph_kind_name(graph.kind)}, {"program", graph.source}};
  if (graph.kind == GraphKind::Tile) {
    const auto first = graph.tile_config_features.begin() + static_cast<std::ptrdiff_t>(config) * kTileConfigFeatureCount;
    out["config_feat"] = std::vector<float>(first, first + kTileConfigFeatureCount);
    out["kernel_bounds"] = std::vector<float>(first, first + 6);
    out["output_bounds"] = std::vector<float>(first + 8, first + 14);
    return out;
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (int32_t slot = 0; slot < graph.configurable_count(); ++slot) {
    const int32_t node = graph.configurable_nodes[static_cast<size_t>(slot)];
    nlohmann::json entry = {{"node", node}, {"opcode", opcode_name(graph.node_opcodes[static_cast<size_t>(node)])}};
    if (!graph.names.empty()) {
      entry["name"] = graph.names.instructions[static_cast<size_t>(node)];
      entry["computation"] = graph.names.computation_of(node);
    }
    const char* blocks[3] = {"output", "input", "kernel"};
    for (int block = 0; block < 3; ++block) {
      std::vector<int> values;
      for (int k = 0; k < 6; ++k) values.push_back(graph.layout_value(config, slot, block * 6 + k));
      entry[blocks[block]] = values;
    }
    nodes.push_back(std::move(entry));
  }
  out["nodes"] = std::move(nodes);
  return out;
}

}  // namespace graphcost
