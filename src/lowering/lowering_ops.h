// The lowering's pieces (hlo_to_halide.cpp walks the computation, these lower one instruction):
// an instruction's operands as Funcs, the Halide expression or Func of each op, and the attributes
// kept as text (a constant's literal, dot's dimension numbers, compare's direction) read back.
#pragma once

#include <Halide.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/hlo_module.h"

namespace graphcost::lowering {

// What lowering one instruction sees: its operands' values (Funcs in the index convention of
// hlo_to_halide.h) and shapes, and where it stands (errors name `where`: "module:line name").
struct OpContext {
  const HloModule& module;
  const HloInstruction& instruction;
  std::vector<Halide::Func> operands;
  std::vector<const HloShape*> operand_shapes;
  std::string where;
  Halide::Expr at(size_t operand, const std::vector<Halide::Expr>& index) const;  // a rank-0 operand ignores the index
};

std::vector<Halide::Var> index_vars(size_t rank);
std::vector<Halide::Expr> as_exprs(const std::vector<Halide::Var>& vars);
std::string func_name(std::string_view instruction_name);  // a valid, unique Halide name

// Refuses (InputError naming op.where, the field, expected and actual) an instruction whose shapes
// break its op's rules (operand shapes and types, dimension lists, the result's shape).
void check_shapes(const OpContext& op);

// The Func of one non-tuple instruction. Refusals (hlo_to_halide.cpp's lowering_refusal) are
// checked before; what reaches here lowers.
Halide::Func lower_elementwise(const OpContext& op);    // unary, binary, compare, select, clamp, convert
Halide::Func lower_data_movement(const OpContext& op);  // broadcast, reshape, bitcast, copy, transpose, slices, concatenate, pad, iota
Halide::Func lower_constant(const OpContext& op);
Halide::Func lower_reduce(const OpContext& op, const HloComputation& to_apply);
Halide::Func lower_dot(const OpContext& op);
Halide::Func lower_convolution(const OpContext& op);  // lowering_windows.cpp
Halide::Func lower_reduce_window(const OpContext& op, const HloComputation& to_apply);

// A reduction's step `a reducer b` (reducer: one of reducer_opcode's answers), and the type a sum
// of products accumulates in for a result type (f16 and bf16 in f32, as XLA's CPU backend).
Halide::Expr combine(std::string_view reducer, const Halide::Expr& a, const Halide::Expr& b);
Halide::Type accumulator_type(const Halide::Type& result);

// The opcodes each of the above takes.
bool is_elementwise_opcode(std::string_view opcode);
bool is_unary_opcode(std::string_view opcode);  // one operand: negate, abs, exponential, ..., copy
bool is_data_movement_opcode(std::string_view opcode);
// The binary op a reduce's to_apply computation is (its root applied to its two parameters), or "".
std::string_view reducer_opcode(const HloComputation& to_apply);

// Kept attribute text read back: "{1,2}" -> {1, 2}. Throws InputError naming `where` and the attribute.
std::vector<int64_t> integer_list_text(std::string_view text, const std::string& where, const std::string& attribute);
// A constant's literal as its value tokens ("({1, -2}, {inf, 3})" -> 1 -2 inf 3); "" when it is
// elided (XLA prints large constants as {...}) or malformed, with the reason in `why`.
std::vector<std::string_view> literal_tokens(std::string_view text, std::string* why);

}  // namespace graphcost::lowering
