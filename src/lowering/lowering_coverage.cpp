#include "lowering/lowering_coverage.h"

#include <algorithm>
#include <map>

#include "lowering/hlo_to_halide.h"

namespace graphcost {

LoweringCoverage lowering_coverage(const HloModule& module) {
  LoweringCoverage coverage;
  std::map<std::string, LoweringCoverage::Opcode> by_opcode;
  // Callees come first in a module (XLA prints them so; the parser requires it), so whether a
  // callee lowers whole is known when its callers are counted.
  std::vector<bool> whole(module.computations.size(), true);
  for (size_t c = 0; c < module.computations.size(); ++c) {
    const HloComputation& computation = module.computations[c];
    for (const HloInstruction& instruction : computation.instructions) {
      std::string why = lowering_refusal(module, computation, instruction);
      if (why.empty() && (instruction.opcode == "call" || instruction.opcode == "fusion")) {
        for (const int32_t callee : instruction.called_computations) {
          if (!whole[static_cast<size_t>(callee)])
            why = "its computation " + module.computations[static_cast<size_t>(callee)].name + " does not lower whole";
        }
      }
      LoweringCoverage::Opcode& entry = by_opcode[std::string(instruction.opcode)];
      entry.opcode = instruction.opcode;
      ++entry.instructions;
      ++coverage.instructions;
      if (why.empty()) {
        ++entry.lowered;
        ++coverage.lowered;
      } else {
        whole[c] = false;
        if (entry.why.empty()) entry.why = why;
      }
    }
  }
  coverage.entry_lowers = module.entry >= 0 && whole[static_cast<size_t>(module.entry)];
  for (auto& [name, entry] : by_opcode) coverage.opcodes.push_back(entry);
  std::stable_sort(coverage.opcodes.begin(), coverage.opcodes.end(),
                   [](const LoweringCoverage::Opcode& a, const LoweringCoverage::Opcode& b) { return a.instructions > b.instructions; });
  return coverage;
}

}  // namespace graphcost
