// HLO opcode ids as TpuGraphs stores them in node_opcode (0 = unknown, 1 abs ... 120 tan).
#pragma once

#include <string>
#include <string_view>

namespace graphcost {

constexpr int kOpcodeCount = 121;

// "convolution" for 26; "out-of-range" for ids outside 0..120.
const std::string& opcode_name(int opcode_id);
// The id of an HLO opcode name, or -1 if unknown.
int opcode_id(std::string_view name);

// Ids the rest of the code refers to by meaning.
namespace opcode {
constexpr int kBroadcast = 13, kConvolution = 26, kCopy = 27, kDot = 34, kFusion = 41, kGetTupleElement = 45, kMultiply = 59,
              kParameter = 63, kReshape = 75, kTuple = 100, kWhile = 102;
}  // namespace opcode

}  // namespace graphcost
