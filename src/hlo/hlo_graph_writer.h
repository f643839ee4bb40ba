// The layout graph of a module written straight to a TpuGraphs .npz, a few rows at a time, without
// building it in memory (`graphcost import`): node_feat rows, edges, names and configs are computed
// from the module as each array is written, so the peak memory is the module's own (a small
// multiple of its text) whatever the node and config counts. The arrays equal what
// build_hlo_graph + add_layout_configs + save_tpu_graph write (tests/test_hlo_graph.cpp compares
// the bytes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hlo/hlo_module.h"
#include "hlo/module_configs.h"

namespace graphcost {

struct HloGraphWritten {
  int64_t nodes = 0, edges = 0, configs = 0;
  std::vector<int32_t> configurable_nodes;
  std::vector<uint8_t> configurable_opcodes;  // node_opcode of each configurable node
  std::vector<std::string> unknown_opcodes;   // node_opcode 0, once each
};

// Writes `module` with the configs of `configs` (asked for in order) to `path`, atomically and
// never over one of `inputs` (common/atomic_file.h), with `provenance` (TpuGraph::provenance) when
// not empty. `progress(configs_written)` is called now and then while configs are written.
HloGraphWritten write_hlo_layout_graph(const HloModule& module, LayoutConfigSource& configs, const std::string& path,
                                       const std::vector<std::string>& inputs, const std::string& provenance = "",
                                       const std::function<void(int64_t)>& progress = {});

}  // namespace graphcost
