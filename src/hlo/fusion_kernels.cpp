#include "hlo/fusion_kernels.h"

#include <algorithm>

#include "common/input_error.h"

namespace graphcost {
namespace {

// The computations `roots` reach through calls (themselves included), in module order.
std::vector<int32_t> reachable_computations(const HloModule& module, const std::vector<int32_t>& roots) {
  std::vector<bool> seen(module.computations.size(), false);
  std::vector<int32_t> stack = roots;
  for (const int32_t root : roots) seen[static_cast<size_t>(root)] = true;
  while (!stack.empty()) {
    const int32_t c = stack.back();
    stack.pop_back();
    for (const HloInstruction& instruction : module.computations[static_cast<size_t>(c)].instructions) {
      for (const int32_t callee : instruction.called_computations) {
        if (!seen[static_cast<size_t>(callee)]) {
          seen[static_cast<size_t>(callee)] = true;
          stack.push_back(callee);
        }
      }
    }
  }
  std::vector<int32_t> order;
  for (size_t c = 0; c < seen.size(); ++c) {
    if (seen[c]) order.push_back(static_cast<int32_t>(c));
  }
  return order;
}

}  // namespace

const HloShape& first_array(const HloShape& shape) {
  const HloShape* current = &shape;
  while (current->is_tuple() && !current->elements.empty()) current = &current->elements.front();
  return *current;
}

std::vector<FusionSite> fusion_sites(const HloModule& module) {
  std::vector<FusionSite> sites;
  for (size_t c = 0; c < module.computations.size(); ++c) {
    const std::vector<HloInstruction>& instructions = module.computations[c].instructions;
    for (size_t i = 0; i < instructions.size(); ++i) {
      if (instructions[i].opcode == "fusion" && !instructions[i].called_computations.empty()) {
        sites.push_back({static_cast<int32_t>(c), static_cast<int32_t>(i)});
      }
    }
  }
  return sites;
}

HloModule kernel_module(const HloModule& module, const FusionSite& site) {
  const HloComputation& computation = module.computations[static_cast<size_t>(site.computation)];
  const HloInstruction& fusion = computation.instructions[static_cast<size_t>(site.instruction)];
  HloModule kernel_module;
  kernel_module.name = module.name + "." + std::string(fusion.name);
  kernel_module.source = module.source;
  kernel_module.bytes = module.bytes;  // the instructions' names are views into it
  kernel_module.decoded = module.decoded;
  kernel_module.from_text = module.from_text;
  const std::vector<int32_t> kept = reachable_computations(module, fusion.called_computations);
  std::vector<int32_t> renumbered(module.computations.size(), -1);
  for (size_t k = 0; k < kept.size(); ++k) renumbered[static_cast<size_t>(kept[k])] = static_cast<int32_t>(k);
  for (const int32_t c : kept) {
    HloComputation copy = module.computations[static_cast<size_t>(c)];
    copy.entry = false;
    for (HloInstruction& instruction : copy.instructions) {
      for (int32_t& callee : instruction.called_computations) callee = renumbered[static_cast<size_t>(callee)];
    }
    kernel_module.computations.push_back(std::move(copy));
  }
  HloComputation entry;
  entry.name = computation.name;
  entry.entry = true;
  HloInstruction root = fusion;
  root.operands.clear();
  for (size_t k = 0; k < fusion.operands.size(); ++k) {
    const HloInstruction& operand = computation.instructions[static_cast<size_t>(fusion.operands[k])];
    HloInstruction parameter;
    parameter.name = operand.name;
    parameter.opcode = "parameter";
    parameter.shape = operand.shape;
    parameter.parameter_number = static_cast<int64_t>(k);
    parameter.op_name = operand.op_name;
    parameter.line = operand.line;
    entry.instructions.push_back(std::move(parameter));
    root.operands.push_back(static_cast<int32_t>(k));
  }
  for (int32_t& callee : root.called_computations) callee = renumbered[static_cast<size_t>(callee)];
  root.marked_root = true;
  entry.instructions.push_back(std::move(root));
  entry.root = static_cast<int32_t>(entry.instructions.size()) - 1;
  kernel_module.computations.push_back(std::move(entry));
  kernel_module.entry = static_cast<int32_t>(kernel_module.computations.size()) - 1;
  return kernel_module;
}

HloModule named_kernel(const HloModule& module, const std::string& path, const std::string& name) {
  for (size_t c = 0; c < module.computations.size(); ++c) {
    const std::vector<HloInstruction>& instructions = module.computations[c].instructions;
    for (size_t i = 0; i < instructions.size(); ++i) {
      if (instructions[i].name != name) continue;
      if (instructions[i].opcode == "parameter" || instructions[i].opcode == "constant") {
        throw InputError(path, "--kernel " + name, "an instruction that computes (a fusion, a dot, a convolution)",
                         std::string(instructions[i].opcode));
      }
      return kernel_module(module, {static_cast<int32_t>(c), static_cast<int32_t>(i)});
    }
  }
  throw InputError(path, "--kernel", "the name of an instruction of the module (a fusion, a dot, a convolution)", name);
}

FusionKernel fusion_kernel(const HloModule& module, const FusionSite& site) {
  const HloComputation& computation = module.computations[static_cast<size_t>(site.computation)];
  const HloInstruction& fusion = computation.instructions[static_cast<size_t>(site.instruction)];
  const HloModule kernel_module = graphcost::kernel_module(module, site);
  FusionKernel kernel;
  kernel.fusion = std::string(fusion.name);
  kernel.computation = computation.name;
  kernel.hlo = build_hlo_graph(kernel_module);
  kernel.hlo.graph.kind = GraphKind::Tile;
  kernel.hlo.graph.node_splits.clear();
  kernel.output = first_array(fusion.shape);
  return kernel;
}

}  // namespace graphcost
