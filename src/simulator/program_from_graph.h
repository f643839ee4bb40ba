// A dataset graph (a real TpuGraphs file, a generated one, or an imported HLO module) rebuilt as
// the cost simulator's program, so the simulator can price the file's own configs
// (`graphcost simulate`, docs/generated-vs-real.md).
//
// What node_feat gives directly: opcode, element type, shape (up to 6 dims), the written layout
// (minor_to_major), convolution dimension numbers and windows, the root mark. Operands come from
// edge_index, in the file's order. What it does not give is rebuilt:
// - A convolution's operand order (the real files sort edges): the operand whose size at the input
//   feature dim is the kernel's input feature size x feature groups, and whose kernel partner's
//   output feature size is the output's, is the input; the file's order when both or neither fit.
// - A dot's contracting dims (the dataset's featurizer writes no dot dimension numbers): first the
//   `dimensions` columns (the generator writes lhs and rhs contracting dims there), if the sizes
//   agree and they are not both 0 (what the real files hold). Otherwise from shapes: the output is
//   [batch dims, lhs free dims, rhs free dims] in order, batch and contracted dims of equal sizes
//   pair by pair, batch dims anywhere in the operands (attention scores batch dims 0 and 2), and a
//   weight gradient contracts several ([512,16,12,23] x [512,16,12,16] -> [23,16]). Preferred, of
//   several that fit: fewer batch dims, fewer contracted dims, batch dims major-most, lhs
//   contracting its minor-most dims ([M, K]), rhs its major-most free dims ([K, N]); operands in
//   the file's order first. The layout rules then use lhs's minor-most contracted dim and its rhs
//   partner. A dot nothing explains is priced as contracting lhs's last dim and counted unresolved.
// - Flops, as the generator counts them: elementwise ops 1 per output element, reductions 1 per
//   input element, reduce-window 1 per output element and window position, convolutions and dots
//   2 per multiply-add.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/tpu_graph.h"
#include "simulator/cost_simulator.h"
#include "simulator/hlo_builder.h"

namespace graphcost {

struct RebuiltProgram {
  std::vector<SynthNode> nodes;
  std::vector<int32_t> configurable;  // the file's configurable nodes (layout files)
  // How the rebuild went, for the report.
  int convolutions = 0, convolutions_order_ambiguous = 0;
  int dots = 0, dots_from_dimensions = 0, dots_from_shapes = 0, dots_unresolved = 0;
  int mxu_ops_missing_operands = 0;  // a convolution or dot with fewer than 2 distinct operands: priced as a vector op
};

// Throws InputError (naming the file, the node and the field) when a node's features cannot be
// a tensor the simulator can price (negative or non-integer dims, a layout that is no permutation).
RebuiltProgram rebuild_program(const TpuGraph& graph);

// A tile file's kernel: its root's output dims, major to minor by the root's layout (the last is
// the one the simulator pads to 128 lanes), flops and parameter bytes. And each config's tile
// sizes in the same order: config_feat's kernel bounds (0..5) when set (the generator writes the
// tile there), else the output dim cut into the output bounds' number of tiles (8..13: what the
// real files hold, their kernel bounds all 0; 1280 cut into 20 tiles is 64), else the whole dim.
TileKernel rebuild_tile_kernel(const TpuGraph& graph);
std::vector<std::vector<int64_t>> tiles_of_configs(const TpuGraph& graph);

}  // namespace graphcost
