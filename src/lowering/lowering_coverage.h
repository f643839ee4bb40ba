// What of a module lowers to Halide (`graphcost lower MODULE --explain`, docs/lowering.md's table):
// every instruction of every computation, counted as lowered when lowering_refusal has nothing
// against it and, for a call or fusion, when its callee lowers whole.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/hlo_module.h"

namespace graphcost {

struct LoweringCoverage {
  struct Opcode {
    std::string opcode;
    int64_t instructions = 0, lowered = 0;
    std::string why;  // the first refusal's reason, "" when all lower
  };
  int64_t instructions = 0, lowered = 0;
  bool entry_lowers = false;    // the entry computation lowers whole (`lower --inputs` can run it)
  std::vector<Opcode> opcodes;  // most instructions first
};

LoweringCoverage lowering_coverage(const HloModule& module);

}  // namespace graphcost
