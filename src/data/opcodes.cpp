#include "data/opcodes.h"

#include <array>
#include <string_view>
#include <unordered_map>

namespace graphcost {
namespace {

// Index = node_opcode id. From LEARNED_HLO_OPCODE_LIST in the TpuGraphs repository
// (tpu_graphs/process_data/xla/hlo_opcode.h); 97 and 101 are tombstones (removed HLO ops).
constexpr std::array<const char*, kOpcodeCount> kOpcodeNames = {
    "unknown",
    "abs",
    "add",
    "add-dependency",
    "after-all",
    "all-reduce",
    "all-to-all",
    "atan2",
    "batch-norm-grad",
    "batch-norm-inference",
    "batch-norm-training",
    "bitcast",
    "bitcast-convert",
    "broadcast",
    "call",
    "ceil",
    "cholesky",
    "clamp",
    "collective-permute",
    "count-leading-zeros",
    "compare",
    "complex",
    "concatenate",
    "conditional",
    "constant",
    "convert",
    "convolution",
    "copy",
    "copy-done",
    "copy-start",
    "cosine",
    "custom-call",
    "divide",
    "domain",
    "dot",
    "dynamic-slice",
    "dynamic-update-slice",
    "exponential",
    "exponential-minus-one",
    "fft",
    "floor",
    "fusion",
    "gather",
    "get-dimension-size",
    "set-dimension-size",
    "get-tuple-element",
    "imag",
    "infeed",
    "iota",
    "is-finite",
    "log",
    "log-plus-one",
    "and",
    "not",
    "or",
    "xor",
    "map",
    "maximum",
    "minimum",
    "multiply",
    "negate",
    "outfeed",
    "pad",
    "parameter",
    "partition-id",
    "popcnt",
    "power",
    "real",
    "recv",
    "recv-done",
    "reduce",
    "reduce-precision",
    "reduce-window",
    "remainder",
    "replica-id",
    "reshape",
    "reverse",
    "rng",
    "rng-get-and-update-state",
    "rng-bit-generator",
    "round-nearest-afz",
    "rsqrt",
    "scatter",
    "select",
    "select-and-scatter",
    "send",
    "send-done",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "sign",
    "sine",
    "slice",
    "sort",
    "sqrt",
    "subtract",
    "tanh",
    "trace",
    "transpose",
    "triangular-solve",
    "tuple",
    "tuple-select",
    "while",
    "cbrt",
    "all-gather",
    "collective-permute-start",
    "collective-permute-done",
    "logistic",
    "dynamic-reshape",
    "all-reduce-start",
    "all-reduce-done",
    "reduce-scatter",
    "all-gather-start",
    "all-gather-done",
    "opt-barrier",
    "async-start",
    "async-update",
    "async-done",
    "round-nearest-even",
    "stochastic-convert",
    "tan",
};

}  // namespace

const std::string& opcode_name(int opcode_id) {
  static const std::array<std::string, kOpcodeCount + 1> names = [] {
    std::array<std::string, kOpcodeCount + 1> table;
    for (int i = 0; i < kOpcodeCount; ++i) table[i] = kOpcodeNames[i];
    table[kOpcodeCount] = "out-of-range";
    return table;
  }();
  return names[opcode_id >= 0 && opcode_id < kOpcodeCount ? opcode_id : kOpcodeCount];
}

int opcode_id(std::string_view name) {
  // A hash lookup: importing HLO text asks once per instruction.
  static const std::unordered_map<std::string_view, int> ids = [] {
    std::unordered_map<std::string_view, int> table;
    for (int i = 0; i < kOpcodeCount; ++i) table.emplace(kOpcodeNames[i], i);
    return table;
  }();
  const auto found = ids.find(name);
  return found == ids.end() ? -1 : found->second;
}

}  // namespace graphcost
