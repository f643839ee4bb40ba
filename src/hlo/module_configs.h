// Configs for a user's own module (`graphcost import`), so a cost model can rank them:
//   layout: the configurable nodes chosen as the dataset's layout files have them (convolution,
//     dot and reshape); config 0 holds the layouts written in the module, and `random_configs`
//     more are drawn as the generator's random collections draw them (data/random_layout_block.h);
//   tile: one kernel graph per fusion instruction (hlo/fusion_kernels.h) with tile configs
//     enumerated from the kernel's output dims (data/tile_configs.h).
// Runtimes are unknown: all 0 (hidden), as in the dataset's test files.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hlo/hlo_graph.h"

namespace graphcost {

// Node ids of the configurable instructions, ascending: every convolution and dot, and every
// reshape with a tensor of rank 2 or more on either side; operands and result must be arrays of
// rank 6 or less (the 6 columns of a layout block). `computation_first` as hlo_graph.h gives it.
std::vector<int32_t> configurable_hlo_nodes(const HloModule& module, const std::vector<int32_t>& computation_first);

// A layout graph's configs, given one at a time and in order, so that a writer never holds them
// all (hlo/hlo_graph_writer.h): which nodes are configurable, how many configs, each config's
// rows (nc x 18 values, -1..5), and their runtimes when measured.
class LayoutConfigSource {
 public:
  virtual ~LayoutConfigSource() = default;
  virtual const std::vector<int32_t>& configurable_nodes() const = 0;
  virtual int64_t config_count() const = 0;
  // Fills `rows` with the next config's values: config 0 on the first call, then 1, 2, ...
  virtual void next_config(int8_t* rows) = 0;
  // Measured runtimes (ns), one per config; empty when unmeasured (written as 0: hidden).
  virtual std::vector<int64_t> runtimes_ns() const { return {}; }
};

// Config 0: each block the written minor_to_major of the node's output, operand 0 (input) and,
// for convolution and dot, operand 1 (kernel); all -1 (the compiler's choice) where the text
// writes no layout. Then `random_configs` more, drawn as the random collections draw them with
// `seed`; none when nothing is configurable (every config would be the same program).
std::unique_ptr<LayoutConfigSource> module_layout_configs(const HloModule& module, const std::vector<int32_t>& computation_first,
                                                          int random_configs, uint64_t seed);

// Sets configurable_nodes, layout_config_features (all of `configs`) and runtimes (zero: hidden,
// when `configs` has none).
void add_layout_configs(HloGraph& hlo, LayoutConfigSource& configs);
// The same for module_layout_configs(module, ..., random_configs, seed).
void add_layout_configs(const HloModule& module, HloGraph& hlo, int random_configs, uint64_t seed);

// Sets tile configs on a kernel graph whose output has `dims` (row-major unless `minor_to_major`
// says otherwise): every combination of per-dim tile options in lexicographic order, or
// `max_configs` of them drawn with `seed` (kept in that order) when there are more.
void add_tile_configs(TpuGraph& kernel, const std::vector<int64_t>& dims, const std::vector<int>& minor_to_major, int max_configs,
                      uint64_t seed);

}  // namespace graphcost
