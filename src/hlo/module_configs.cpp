#include "hlo/module_configs.h"

#include <algorithm>
#include <random>

#include "common/input_error.h"
#include "data/random_layout_block.h"
#include "data/tile_configs.h"

namespace graphcost {
namespace {

constexpr int kMaxLayoutRank = 6;

bool is_array_of_layout_rank(const HloShape& shape) {
  return !shape.is_tuple() && shape.dims.size() <= kMaxLayoutRank && shape.element_type != "token";
}

bool has_kernel(const HloInstruction& instruction) { return instruction.opcode == "convolution" || instruction.opcode == "dot"; }

struct ConfigurableTensors {
  const HloShape* output;
  const HloShape* input;
  const HloShape* kernel;  // null for reshape
};

ConfigurableTensors tensors_of(const HloComputation& computation, const HloInstruction& instruction) {
  ConfigurableTensors tensors{&instruction.shape, nullptr, nullptr};
  if (!instruction.operands.empty()) tensors.input = &computation.instructions[static_cast<size_t>(instruction.operands[0])].shape;
  if (has_kernel(instruction) && instruction.operands.size() >= 2) {
    tensors.kernel = &computation.instructions[static_cast<size_t>(instruction.operands[1])].shape;
  }
  return tensors;
}

void write_block(int8_t* block, const HloShape* shape) {
  std::fill(block, block + 6, static_cast<int8_t>(-1));
  if (shape == nullptr || !shape->layout_written) return;
  for (size_t i = 0; i < shape->minor_to_major.size() && i < 6; ++i) block[i] = static_cast<int8_t>(shape->minor_to_major[i]);
}

}  // namespace

std::vector<int32_t> configurable_hlo_nodes(const HloModule& module, const HloGraph& hlo) {
  std::vector<int32_t> nodes;
  for (size_t c = 0; c < module.computations.size(); ++c) {
    const HloComputation& computation = module.computations[c];
    for (size_t i = 0; i < computation.instructions.size(); ++i) {
      const HloInstruction& instruction = computation.instructions[i];
      const bool mxu = has_kernel(instruction);
      if (!mxu && instruction.opcode != "reshape") continue;
      if (instruction.operands.size() < (mxu ? 2u : 1u)) continue;
      const ConfigurableTensors tensors = tensors_of(computation, instruction);
      if (!is_array_of_layout_rank(*tensors.output) || !is_array_of_layout_rank(*tensors.input)) continue;
      if (mxu && !is_array_of_layout_rank(*tensors.kernel)) continue;
      if (!mxu && std::max(tensors.output->dims.size(), tensors.input->dims.size()) < 2) continue;
      nodes.push_back(hlo.node_of(c, i));
    }
  }
  return nodes;
}

void add_layout_configs(const HloModule& module, HloGraph& hlo, int random_configs, uint64_t seed) {
  TpuGraph& graph = hlo.graph;
  if (random_configs < 0) throw InputError(module.source, "configs", "0 or more random configs", std::to_string(random_configs));
  graph.configurable_nodes = configurable_hlo_nodes(module, hlo);
  const size_t nc = graph.configurable_nodes.size();
  std::vector<ConfigurableTensors> tensors;
  tensors.reserve(nc);
  for (const int32_t node : graph.configurable_nodes) {
    const size_t c = static_cast<size_t>(std::upper_bound(hlo.computation_first.begin(), hlo.computation_first.end(), node) -
                                         hlo.computation_first.begin() - 1);
    const HloComputation& computation = module.computations[c];
    tensors.push_back(tensors_of(computation, computation.instructions[static_cast<size_t>(node - hlo.computation_first[c])]));
  }
  // With nothing configurable every config is the same program: config 0 alone.
  if (nc == 0) random_configs = 0;
  graph.config_count = 1 + random_configs;
  graph.layout_config_features.assign(static_cast<size_t>(graph.config_count) * nc * kLayoutConfigFeatureCount, -1);
  for (size_t slot = 0; slot < nc; ++slot) {
    int8_t* row = graph.layout_config_features.data() + slot * kLayoutConfigFeatureCount;
    write_block(row, tensors[slot].output);
    write_block(row + 6, tensors[slot].input);
    write_block(row + 12, tensors[slot].kernel);
  }
  std::mt19937_64 random(seed);
  for (int config = 1; config <= random_configs; ++config) {
    for (size_t slot = 0; slot < nc; ++slot) {
      int8_t* row = graph.layout_config_features.data() + (static_cast<size_t>(config) * nc + slot) * kLayoutConfigFeatureCount;
      const ConfigurableTensors& t = tensors[slot];
      draw_random_layout_block(row, static_cast<int>(t.output->dims.size()), random);
      draw_random_layout_block(row + 6, static_cast<int>(t.input->dims.size()), random);
      if (t.kernel != nullptr) draw_random_layout_block(row + 12, static_cast<int>(t.kernel->dims.size()), random);
    }
  }
  graph.config_runtime_ns.assign(static_cast<size_t>(graph.config_count), 0);
  graph.runtimes_hidden = true;
}

void add_tile_configs(TpuGraph& kernel, const std::vector<int64_t>& dims, const std::vector<int>& minor_to_major, int max_configs,
                      uint64_t seed) {
  // Alignment by the layout: 128 lanes for the minor-most dim, 8 sublanes for the next.
  std::vector<int64_t> alignment(dims.size(), 1);
  if (!minor_to_major.empty()) alignment[static_cast<size_t>(minor_to_major[0])] = 128;
  if (minor_to_major.size() > 1) alignment[static_cast<size_t>(minor_to_major[1])] = 8;
  std::vector<std::vector<int64_t>> options;
  double combinations = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    options.push_back(tile_options(dims[d], alignment[d]));
    combinations *= static_cast<double>(options.back().size());
  }
  const uint64_t total = combinations > 1e18 ? uint64_t(1e18) : static_cast<uint64_t>(combinations);
  std::vector<uint64_t> picked;
  if (total <= static_cast<uint64_t>(max_configs)) {
    for (uint64_t i = 0; i < total; ++i) picked.push_back(i);
  } else {
    std::mt19937_64 random(seed);
    while (picked.size() < static_cast<size_t>(max_configs)) {
      picked.push_back(random() % total);
      if (picked.size() == static_cast<size_t>(max_configs)) {
        std::sort(picked.begin(), picked.end());
        picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
      }
    }
  }
  kernel.tile_config_features.clear();
  for (uint64_t index : picked) {
    std::vector<int64_t> tile(dims.size());
    for (size_t d = dims.size(); d-- > 0;) {  // the last dim varies fastest
      tile[d] = options[d][index % options[d].size()];
      index /= options[d].size();
    }
    const std::vector<float> features = tile_config_features(dims, tile);
    kernel.tile_config_features.insert(kernel.tile_config_features.end(), features.begin(), features.end());
  }
  kernel.config_count = static_cast<int32_t>(picked.size());
  kernel.config_runtime_ns.assign(picked.size(), 0);
  kernel.config_runtime_normalizers_ns.assign(picked.size(), 1);
  kernel.runtimes_hidden = true;
}

}  // namespace graphcost
