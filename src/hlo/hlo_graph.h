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

// Refuses (InputError) a module of 2^30 instructions or more.
HloGraph build_hlo_graph(const HloModule& module);

// The pieces build_hlo_graph is made of, for writers that stream a graph without building it
// (hlo/hlo_graph_writer.h):
// the node id of each computation's first instruction (InputError past 2^30 nodes);
std::vector<int32_t> computation_first_nodes(const HloModule& module);
// the producers of instruction `i` of computation `c`: its distinct operands and the ROOT of each
// computation it calls, ascending, without itself (one node's edges, in edge_index order);
void node_producers(const HloModule& module, const std::vector<int32_t>& computation_first, size_t c, size_t i,
                    std::vector<int32_t>& producers);
// node_splits: 0, the end of each computation whose name contains "cluster", "while" or "cond", and n;
std::vector<int64_t> hlo_node_splits(const HloModule& module);
// a node's opcode id (0 for opcodes outside the dataset's table, which are added to `unknown` once).
uint8_t hlo_opcode_id(std::string_view opcode, std::vector<std::string>& unknown);

}  // namespace graphcost
