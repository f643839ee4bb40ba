#include "hlo/hlo_graph.h"

#include <algorithm>
#include <limits>

#include "common/input_error.h"
#include "data/opcodes.h"
#include "hlo/hlo_features.h"

namespace graphcost {

HloGraph build_hlo_graph(const HloModule& module) {
  HloGraph result;
  TpuGraph& graph = result.graph;
  graph.kind = GraphKind::Layout;
  graph.source = module.source;
  const int64_t n = module.instruction_count();
  if (n > std::numeric_limits<int32_t>::max() / 2) {
    throw InputError(module.source, "instructions", "fewer than 2^30", std::to_string(n));
  }
  graph.node_count = static_cast<int32_t>(n);
  graph.node_features.resize(static_cast<size_t>(n) * kNodeFeatureCount);
  graph.node_opcodes.resize(static_cast<size_t>(n));
  NodeNames& names = graph.names;
  names.instructions.reserve(static_cast<size_t>(n));
  names.op_names.reserve(static_cast<size_t>(n));
  names.computation.reserve(static_cast<size_t>(n));

  int32_t next = 0;
  for (const HloComputation& computation : module.computations) {
    result.computation_first.push_back(next);
    next += static_cast<int32_t>(computation.instructions.size());
  }
  graph.node_splits = {0};
  for (size_t c = 0; c < module.computations.size(); ++c) {
    const HloComputation& computation = module.computations[c];
    names.computations.push_back(computation.name);
    for (size_t i = 0; i < computation.instructions.size(); ++i) {
      const HloInstruction& instruction = computation.instructions[i];
      const int32_t node = result.node_of(c, i);
      const auto features = hlo_node_features(instruction, static_cast<int32_t>(i) == computation.root);
      std::copy(features.begin(), features.end(), graph.node_features.begin() + static_cast<ptrdiff_t>(node) * kNodeFeatureCount);
      const int opcode = opcode_id(instruction.opcode);
      if (opcode < 0 &&
          std::find(result.unknown_opcodes.begin(), result.unknown_opcodes.end(), instruction.opcode) == result.unknown_opcodes.end()) {
        result.unknown_opcodes.push_back(instruction.opcode);
      }
      graph.node_opcodes[static_cast<size_t>(node)] = static_cast<uint8_t>(std::max(0, opcode));
      for (const int32_t operand : instruction.operands) graph.edges.push_back({node, result.node_of(c, static_cast<size_t>(operand))});
      for (const int32_t callee : instruction.called_computations) {
        graph.edges.push_back({node, result.node_of(static_cast<size_t>(callee),
                                                    static_cast<size_t>(module.computations[static_cast<size_t>(callee)].root))});
      }
      names.instructions.push_back(instruction.name);
      names.op_names.push_back(instruction.op_name);
      names.computation.push_back(static_cast<int32_t>(c));
    }
    const std::string& name = computation.name;
    const bool splits =
        name.find("cluster") != std::string::npos || name.find("while") != std::string::npos || name.find("cond") != std::string::npos;
    const int64_t end = result.computation_first[c] + static_cast<int64_t>(computation.instructions.size());
    if (splits && end != graph.node_splits.back()) graph.node_splits.push_back(end);
  }
  if (graph.node_splits.back() != n) graph.node_splits.push_back(n);
  std::sort(graph.edges.begin(), graph.edges.end(),
            [](const Edge& a, const Edge& b) { return a.consumer != b.consumer ? a.consumer < b.consumer : a.producer < b.producer; });
  graph.edges.erase(std::unique(graph.edges.begin(), graph.edges.end(),
                                [](const Edge& a, const Edge& b) { return a.consumer == b.consumer && a.producer == b.producer; }),
                    graph.edges.end());
  graph.edges.erase(std::remove_if(graph.edges.begin(), graph.edges.end(), [](const Edge& e) { return e.consumer == e.producer; }),
                    graph.edges.end());
  return result;
}

}  // namespace graphcost
