#include "hlo/hlo_graph.h"

#include <algorithm>
#include <limits>

#include "common/input_error.h"
#include "data/opcodes.h"
#include "hlo/hlo_features.h"

namespace graphcost {

std::vector<int32_t> computation_first_nodes(const HloModule& module) {
  const int64_t n = module.instruction_count();
  if (n > std::numeric_limits<int32_t>::max() / 2) {
    throw InputError(module.source, "instructions", "fewer than 2^30", std::to_string(n));
  }
  std::vector<int32_t> first;
  int32_t next = 0;
  for (const HloComputation& computation : module.computations) {
    first.push_back(next);
    next += static_cast<int32_t>(computation.instructions.size());
  }
  return first;
}

void node_producers(const HloModule& module, const std::vector<int32_t>& computation_first, size_t c, size_t i,
                    std::vector<int32_t>& producers) {
  const HloInstruction& instruction = module.computations[c].instructions[i];
  const int32_t node = computation_first[c] + static_cast<int32_t>(i);
  producers.clear();
  for (const int32_t operand : instruction.operands) producers.push_back(computation_first[c] + operand);
  for (const int32_t callee : instruction.called_computations) {
    producers.push_back(computation_first[static_cast<size_t>(callee)] + module.computations[static_cast<size_t>(callee)].root);
  }
  std::sort(producers.begin(), producers.end());
  producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
  producers.erase(std::remove(producers.begin(), producers.end(), node), producers.end());
}

std::vector<int64_t> hlo_node_splits(const HloModule& module) {
  std::vector<int64_t> splits = {0};
  int64_t end = 0;
  for (const HloComputation& computation : module.computations) {
    end += static_cast<int64_t>(computation.instructions.size());
    const std::string& name = computation.name;
    const bool splits_here =
        name.find("cluster") != std::string::npos || name.find("while") != std::string::npos || name.find("cond") != std::string::npos;
    if (splits_here && end != splits.back()) splits.push_back(end);
  }
  if (splits.back() != end) splits.push_back(end);
  return splits;
}

uint8_t hlo_opcode_id(std::string_view opcode, std::vector<std::string>& unknown) {
  const int id = opcode_id(opcode);
  if (id < 0 && std::find(unknown.begin(), unknown.end(), opcode) == unknown.end()) unknown.push_back(std::string(opcode));
  return static_cast<uint8_t>(std::max(0, id));
}

HloGraph build_hlo_graph(const HloModule& module) {
  HloGraph result;
  TpuGraph& graph = result.graph;
  graph.kind = GraphKind::Layout;
  graph.source = module.source;
  result.computation_first = computation_first_nodes(module);
  const int64_t n = module.instruction_count();
  graph.node_count = static_cast<int32_t>(n);
  graph.node_features.resize(static_cast<size_t>(n) * kNodeFeatureCount);
  graph.node_opcodes.resize(static_cast<size_t>(n));
  NodeNames& names = graph.names;
  names.instructions.reserve(static_cast<size_t>(n));
  names.op_names.reserve(static_cast<size_t>(n));
  names.computation.reserve(static_cast<size_t>(n));
  std::vector<int32_t> producers;
  for (size_t c = 0; c < module.computations.size(); ++c) {
    const HloComputation& computation = module.computations[c];
    names.computations.push_back(printable(computation.name));
    for (size_t i = 0; i < computation.instructions.size(); ++i) {
      const HloInstruction& instruction = computation.instructions[i];
      const int32_t node = result.node_of(c, i);
      const auto features = hlo_node_features(instruction, static_cast<int32_t>(i) == computation.root);
      std::copy(features.begin(), features.end(), graph.node_features.begin() + static_cast<ptrdiff_t>(node) * kNodeFeatureCount);
      graph.node_opcodes[static_cast<size_t>(node)] = hlo_opcode_id(instruction.opcode, result.unknown_opcodes);
      node_producers(module, result.computation_first, c, i, producers);
      for (const int32_t producer : producers) graph.edges.push_back({node, producer});
      // Stored as UTF-8 without control bytes (data/node_names.h): printable() escapes the rest.
      names.instructions.push_back(printable(instruction.name));
      names.op_names.push_back(printable(instruction.op_name));
      names.computation.push_back(static_cast<int32_t>(c));
    }
  }
  graph.node_splits = hlo_node_splits(module);
  return result;
}

}  // namespace graphcost
