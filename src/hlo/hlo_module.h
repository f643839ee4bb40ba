// HloModule: an XLA HLO module read from its text form (what `XLA_FLAGS=--xla_dump_to=DIR` writes,
// or `jax.jit(f).lower(x).as_text(dialect="hlo")`), with what TpuGraphs featurizes of each
// instruction. docs/import.md says what is read and what is not.
//
// The grammar read (XLA's hlo_parser.cc):
//   module      := 'HloModule' name (',' attribute)* info_block* computation+
//   info_block  := ('FileNames' | 'FunctionNames' | 'FileLocations' | 'StackFrames') (integer value)*
//   computation := ['ENTRY'] name [signature '->' shape] '{' instruction+ '}' (',' attribute)*
//   instruction := ['ROOT'] name '=' shape opcode '(' [operand (',' operand)*] ')' (',' attribute)*
//   operand     := [shape] name          (constant: a literal; parameter: its number)
//   shape       := type '[' [dim (',' dim)*] ']' [layout] | '(' [shape (',' shape)*] ')'
//   dim         := integer | '<=' integer | '?'        layout := '{' [integers] [':' tiling...] '}'
// Names may start with '%'. `//` and `/* */` comments may stand anywhere outside strings.
// Attribute values the featurizer does not read (metadata's other fields, backend_config,
// sharding, ...) are skipped by balancing brackets, braces and strings, iteratively (no
// recursion, so 10^6-deep nesting is refused or skipped, never a stack overflow).
//
// Malformed text throws InputError with the file "<path>:<line>:<column>", the part being read,
// what was expected there and what was found. Operand names resolve within their computation and
// must be defined before their use; called computations must be defined earlier in the module
// (XLA prints callees first), so the text is already in the order TpuGraphs numbers nodes.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace graphcost {

struct HloShape {
  std::string_view element_type;    // "f32", "bf16", "pred", "token", ...; "tuple" for tuples
  std::vector<int64_t> dims;        // dynamic dims (`<=N`) as their bound N, unbounded (`?`) as -1
  std::vector<int> minor_to_major;  // the written layout (a permutation of the dims), or {rank-1, ..., 0} when none is written
  bool layout_written = false;      // the text gave `{...}` after the dims
  std::vector<HloShape> elements;   // tuple elements (top level; nested tuples inside)
  bool is_tuple() const { return element_type == "tuple"; }
  bool has_dynamic_dimension() const;  // an unbounded `?` dim (-1)
};

// One dimension of a `window={...}` attribute, with XLA's defaults.
struct HloWindowDim {
  int64_t size = 1, stride = 1, padding_low = 0, padding_high = 0;
  int64_t window_dilation = 1, base_dilation = 1;  // rhs_dilate, lhs_dilate
  bool reversal = false;                           // rhs_reversal
};

// `dim_labels=b01f_01io->b01f`: the dimension index of each role (spatial dims in label order).
struct HloConvolutionDims {
  int64_t input_batch = 0, input_feature = 0, kernel_input_feature = 0, kernel_output_feature = 0;
  int64_t output_batch = 0, output_feature = 0;
  std::vector<int64_t> input_spatial, kernel_spatial, output_spatial;
};

struct HloSliceDim {
  int64_t start = 0, limit = 0, stride = 1;
};

struct HloPaddingDim {  // `padding=lo_hi_interior x ...` of pad
  int64_t low = 0, high = 0, interior = 0;
};

// Attributes few instructions carry (convolutions, windows, slices, pads), kept apart so that the
// common instruction stays small (the parser's memory is a small multiple of the text's).
struct HloOpAttributes {
  std::vector<HloWindowDim> window;  // empty: no window attribute
  bool has_convolution_dims = false;
  HloConvolutionDims convolution_dims;
  int64_t feature_group_count = -1, batch_group_count = -1;  // -1: not written
  std::vector<HloSliceDim> slice;
  std::vector<int64_t> dynamic_slice_sizes;
  std::vector<HloPaddingDim> padding;  // pad's padding=...
  // Attributes kept as their text for the Halide lowering (lowering/): a constant's literal ("literal":
  // "(1.5)", "({1, 2})"), dot's dimension numbers (lhs_contracting_dims, ...), compare's direction, get-tuple-element's index.
  std::vector<std::pair<std::string_view, std::string_view>> kept_text;
  std::string_view text_of(std::string_view key) const;  // "" when not written
};

// Names and opcodes are views into the bytes their module owns (HloModule::bytes), valid while
// the module, or a copy of it, lives.
struct HloInstruction {
  std::string_view name;     // without the leading '%'
  std::string_view opcode;   // as written: "convolution", "get-tuple-element", ...
  std::string_view op_name;  // metadata={op_name="..."}, escapes resolved: the source namespace, "" when absent
  HloShape shape;
  std::vector<int32_t> operands;                 // instruction indices in the same computation, as written
  std::vector<int32_t> called_computations;      // calls=, to_apply=, condition=, body=, branch_computations=, ...
  std::vector<int64_t> dimensions;               // dimensions={...} (or iota_dimension=K)
  std::shared_ptr<HloOpAttributes> attributes;   // null when none of them was written
  int64_t parameter_number = -1;                 // K of parameter(K)
  int32_t line = 0;                              // 1-based line of the instruction in the text (0: from a proto)
  bool marked_root = false;                      // written with ROOT
  bool is_stable = false;                        // is_stable=true (sort)
  const HloOpAttributes& op_attributes() const;  // *attributes, or an empty set
};

struct HloComputation {
  std::string name;
  bool entry = false;
  std::vector<HloInstruction> instructions;
  int32_t root = 0;  // the instruction marked ROOT, else the last one
};

struct HloModule {
  std::string name;
  std::string source;                        // path or label the module came from (errors)
  std::vector<HloComputation> computations;  // in text order: callees first
  int32_t entry = -1;                        // the ENTRY computation, else the last one
  // What the instructions' views point into: the text (or proto bytes) read, and strings that
  // differ from their bytes (op_names with escapes resolved). Shared by copies of the module.
  std::shared_ptr<const std::string> bytes;
  std::shared_ptr<std::deque<std::string>> decoded;
  bool from_text = false;  // `bytes` is HLO text (parse_hlo_module), not a proto
  int64_t instruction_count() const;
};

// Parses a whole module, keeping `text` (the module's names are views into it); `source` names it
// in errors ("<source>:<line>:<column>"). A leading UTF-8 byte order mark is skipped; lines may end
// in \n, \r\n or \r.
HloModule parse_hlo_module(std::string text, const std::string& source);
// True for paths the tools treat as HLO text: ending in .hlo or .txt.
bool is_hlo_text_path(const std::string& path);

}  // namespace graphcost
