// The TpuGraphs graph of an HLO module, built as the dataset's encoder (tpu_graphs hlo_encoder.cc)
// builds it from the module's proto:
//   - nodes: every instruction of every computation (called computations are not inlined), in
//     module order (the text's: callees first, operands before users);
//   - edges [consumer, operand] for each distinct operand, plus [caller, ROOT of each called
//     computation]; unique, sorted, every edge u > v;
//   - node_splits: 0, the end of each computation whose name contains "cluster", "while" or
//     "cond", and n;
//   - node_opcode from the dataset's table (data/opcodes.h), 0 for opcodes outside it;
//   - node_feat from hlo/hlo_features.h;
//   - names: instruction, computation and metadata op_name of each node (data/node_names.h).
#pragma once

#include <string>
#include <vector>

#include "data/tpu_graph.h"
#include "hlo/hlo_module.h"

namespace graphcost {

struct HloGraph {
  TpuGraph graph;                            // kind Layout, no configs yet (hlo/module_configs.h adds them)
  std::vector<int32_t> computation_first;    // node id of each computation's first instruction
  std::vector<std::string> unknown_opcodes;  // opcodes outside the dataset's table (node_opcode 0), once each
  int32_t node_of(size_t computation, size_t instruction) const {
    return computation_first[computation] + static_cast<int32_t>(instruction);
  }
};

HloGraph build_hlo_graph(const HloModule& module);

}  // namespace graphcost
