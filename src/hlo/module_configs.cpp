#include "hlo/module_configs.h"

#include <algorithm>
#include <random>
#include <unordered_set>

#include "common/input_error.h"
#include "common/internal_error.h"
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

std::vector<int32_t> configurable_hlo_nodes(const HloModule& module, const std::vector<int32_t>& computation_first) {
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
      nodes.push_back(computation_first[c] + static_cast<int32_t>(i));
    }
  }
  return nodes;
}

namespace {

// Config 0 from the module's written layouts, then random blocks drawn in config order.
class ModuleLayoutConfigs : public LayoutConfigSource {
 public:
  ModuleLayoutConfigs(const HloModule& module, const std::vector<int32_t>& computation_first, int random_configs, uint64_t seed)
      : random_(seed) {
    if (random_configs < 0) throw InputError(module.source, "configs", "0 or more random configs", std::to_string(random_configs));
    nodes_ = configurable_hlo_nodes(module, computation_first);
    for (const int32_t node : nodes_) {
      const size_t c =
          static_cast<size_t>(std::upper_bound(computation_first.begin(), computation_first.end(), node) - computation_first.begin() - 1);
      const HloComputation& computation = module.computations[c];
      tensors_.push_back(tensors_of(computation, computation.instructions[static_cast<size_t>(node - computation_first[c])]));
    }
    // With nothing configurable every config is the same program: config 0 alone.
    count_ = 1 + (nodes_.empty() ? 0 : random_configs);
  }
  const std::vector<int32_t>& configurable_nodes() const override { return nodes_; }
  int64_t config_count() const override { return count_; }
  void next_config(int8_t* rows) override {
    check_invariant(next_ < count_, "no more configs than config_count()");
    for (size_t slot = 0; slot < tensors_.size(); ++slot) {
      int8_t* row = rows + slot * kLayoutConfigFeatureCount;
      const ConfigurableTensors& t = tensors_[slot];
      if (next_ == 0) {
        write_block(row, t.output);
        write_block(row + 6, t.input);
        write_block(row + 12, t.kernel);
      } else {
        std::fill(row, row + kLayoutConfigFeatureCount, static_cast<int8_t>(-1));
        draw_random_layout_block(row, static_cast<int>(t.output->dims.size()), random_);
        draw_random_layout_block(row + 6, static_cast<int>(t.input->dims.size()), random_);
        if (t.kernel != nullptr) draw_random_layout_block(row + 12, static_cast<int>(t.kernel->dims.size()), random_);
      }
    }
    ++next_;
  }

 private:
  std::vector<int32_t> nodes_;
  std::vector<ConfigurableTensors> tensors_;
  int64_t count_ = 1, next_ = 0;
  std::mt19937_64 random_;
};

}  // namespace

std::unique_ptr<LayoutConfigSource> module_layout_configs(const HloModule& module, const std::vector<int32_t>& computation_first,
                                                          int random_configs, uint64_t seed) {
  return std::make_unique<ModuleLayoutConfigs>(module, computation_first, random_configs, seed);
}

void add_layout_configs(HloGraph& hlo, LayoutConfigSource& configs) {
  TpuGraph& graph = hlo.graph;
  graph.configurable_nodes = configs.configurable_nodes();
  const size_t per_config = graph.configurable_nodes.size() * kLayoutConfigFeatureCount;
  graph.config_count = static_cast<int32_t>(configs.config_count());
  graph.layout_config_features.assign(static_cast<size_t>(graph.config_count) * per_config, -1);
  for (int32_t config = 0; config < graph.config_count; ++config) {
    configs.next_config(graph.layout_config_features.data() + static_cast<size_t>(config) * per_config);
  }
  graph.config_runtime_ns = configs.runtimes_ns();
  graph.runtimes_hidden = graph.config_runtime_ns.empty();
  if (graph.runtimes_hidden) graph.config_runtime_ns.assign(static_cast<size_t>(graph.config_count), 0);
}

void add_layout_configs(const HloModule& module, HloGraph& hlo, int random_configs, uint64_t seed) {
  const std::unique_ptr<LayoutConfigSource> configs = module_layout_configs(module, hlo.computation_first, random_configs, seed);
  add_layout_configs(hlo, *configs);
}

void add_tile_configs(TpuGraph& kernel, const std::vector<int64_t>& dims, const std::vector<int>& minor_to_major, int max_configs,
                      uint64_t seed) {
  for (const int64_t dim : dims) check_invariant(dim >= 0, "tile configs are drawn for static output dims only");
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
    // Floyd's sampling: max_configs distinct indices in max_configs draws, however close to the
    // total (drawing until enough distinct ones came up stalled near it).
    std::mt19937_64 random(seed);
    std::unordered_set<uint64_t> chosen;
    chosen.reserve(static_cast<size_t>(max_configs));
    for (uint64_t j = total - static_cast<uint64_t>(max_configs); j < total; ++j) {
      const uint64_t t = random() % (j + 1);
      if (!chosen.insert(t).second) chosen.insert(j);
    }
    picked.assign(chosen.begin(), chosen.end());
    std::sort(picked.begin(), picked.end());
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
