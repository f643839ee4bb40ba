// Ops that move data without computing (lowering_ops.h): each output element reads one operand
// element at an index computed from its own.
#include <algorithm>
#include <set>

#include "common/input_error.h"
#include "lowering/hlo_to_halide.h"
#include "lowering/lowering_ops.h"

namespace graphcost::lowering {

using Halide::Expr;
using Halide::Func;
using Halide::Var;

namespace {

Expr int_expr(int64_t value) { return Expr(static_cast<int32_t>(value)); }

// Reshape's index map between two shapes of the same element count, both given major first:
// dimensions are grouped where their products agree (so adding or removing unit dimensions, or
// splitting one dimension, costs no division over the whole index), and within a group the
// output's row-major offset is split into the input's dimensions.
std::vector<Expr> reshape_index(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& out_dims, const std::vector<Expr>& out) {
  std::vector<Expr> in(in_dims.size());
  size_t i = 0, j = 0;
  while (i < in_dims.size() || j < out_dims.size()) {
    const size_t i0 = i, j0 = j;
    int64_t pi = 1, pj = 1;
    if (i < in_dims.size()) pi *= in_dims[i++];
    if (j < out_dims.size()) pj *= out_dims[j++];
    while (pi != pj) {
      if (pi < pj && i < in_dims.size()) pi *= in_dims[i++];
      else if (j < out_dims.size()) pj *= out_dims[j++];
      else break;
    }
    Expr offset = int_expr(0);
    for (size_t k = j0; k < j; ++k) offset = offset * int_expr(out_dims[k]) + out[k];
    for (size_t k = i; k-- > i0;) {
      in[k] = in_dims[k] == 1 ? int_expr(0) : (k == i0 ? offset : offset % int_expr(in_dims[k]));
      offset = offset / int_expr(in_dims[k]);
    }
  }
  return in;
}

// A shape's dimension indices major first: logical order, or the layout's (bitcast).
std::vector<int64_t> major_first(const HloShape& shape, bool by_layout) {
  std::vector<int64_t> order;
  for (size_t d = 0; d < shape.dims.size(); ++d) order.push_back(static_cast<int64_t>(d));
  if (by_layout) order.assign(shape.minor_to_major.rbegin(), shape.minor_to_major.rend());
  return order;
}

std::vector<Expr> reshaped(const HloShape& from, const HloShape& to, const std::vector<Expr>& index, bool by_layout) {
  const std::vector<int64_t> from_order = major_first(from, by_layout), to_order = major_first(to, by_layout);
  std::vector<int64_t> from_dims, to_dims;
  std::vector<Expr> to_index;
  for (const int64_t d : from_order) from_dims.push_back(from.dims[static_cast<size_t>(d)]);
  for (const int64_t d : to_order) {
    to_dims.push_back(to.dims[static_cast<size_t>(d)]);
    to_index.push_back(index[static_cast<size_t>(d)]);
  }
  const std::vector<Expr> from_major = reshape_index(from_dims, to_dims, to_index);
  std::vector<Expr> result(from.dims.size());
  for (size_t k = 0; k < from_order.size(); ++k) result[static_cast<size_t>(from_order[k])] = from_major[k];
  return result;
}

Expr concatenate(const OpContext& op, const std::vector<Expr>& index) {
  const size_t dim = static_cast<size_t>(op.instruction.dimensions.at(0));
  std::vector<Expr> parts;
  int64_t offset = 0;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    std::vector<Expr> shifted = index;
    // Clamped: Halide evaluates every select branch, and its bounds inference would otherwise
    // ask each operand for the whole output's range.
    const int64_t size = op.operand_shapes[k]->dims[dim];
    shifted[dim] = Halide::clamp(index[dim] - int_expr(offset), 0, int_expr(std::max<int64_t>(size - 1, 0)));
    offset += size;
    if (k + 1 < op.operands.size()) parts.push_back(index[dim] < int_expr(offset));
    parts.push_back(op.at(k, shifted));
  }
  if (parts.size() == 1) return parts[0];
  // select(c0, v0, c1, v1, ..., vn) as nested selects.
  Expr value = parts.back();
  for (size_t k = parts.size() - 1; k >= 2; k -= 2) value = Halide::select(parts[k - 2], parts[k - 1], value);
  return value;
}

Expr pad(const OpContext& op, const std::vector<Expr>& index) {
  const std::vector<HloPaddingDim>& padding = op.instruction.op_attributes().padding;
  const HloShape& operand = *op.operand_shapes[0];
  Expr inside = Halide::Internal::const_true();
  std::vector<Expr> source(index.size());
  for (size_t d = 0; d < index.size(); ++d) {
    const HloPaddingDim p = d < padding.size() ? padding[d] : HloPaddingDim{};
    const Expr q = index[d] - int_expr(p.low);
    const Expr step = int_expr(p.interior + 1);
    const Expr position = p.interior == 0 ? q : q / step;
    inside = inside && q >= 0 && position < int_expr(operand.dims[d]);
    if (p.interior != 0) inside = inside && q % step == 0;
    source[d] = Halide::clamp(position, 0, int_expr(std::max<int64_t>(operand.dims[d] - 1, 0)));
  }
  return Halide::select(inside, op.at(0, source), op.at(1, {}));
}

// dynamic-slice's and dynamic-update-slice's start, clamped as XLA does so the window fits.
// Clamped in the start's own width first: a 64-bit start past 2^31 must clamp to the end, not wrap.
Expr clamped_start(const OpContext& op, size_t operand, int64_t dim_size, int64_t window) {
  const Expr start = op.at(operand, {});
  const Halide::Type wide = start.type().is_uint() ? Halide::UInt(64) : Halide::Int(64);
  const Expr highest = Halide::cast(wide, Expr(static_cast<int32_t>(dim_size - window)));
  const Expr clamped = start.type().is_uint() ? Halide::min(Halide::cast(wide, start), highest)
                                              : Halide::clamp(Halide::cast(wide, start), Halide::cast(wide, 0), highest);
  return Halide::cast(Halide::Int(32), clamped);
}

}  // namespace

bool is_data_movement_opcode(std::string_view opcode) {
  static const std::set<std::string_view, std::less<>> opcodes = {
      "broadcast", "reshape", "bitcast", "transpose", "slice", "dynamic-slice", "dynamic-update-slice", "concatenate", "pad", "iota"};
  return opcodes.count(opcode) > 0;
}

Func lower_data_movement(const OpContext& op) {
  const HloInstruction& in = op.instruction;
  const std::vector<Var> v = index_vars(in.shape.dims.size());
  const std::vector<Expr> index = as_exprs(v);
  const std::string_view opcode = in.opcode;
  Expr value;
  if (opcode == "iota") {
    value = Halide::cast(halide_type(in.shape.element_type, op.where), index.at(static_cast<size_t>(in.dimensions.at(0))));
  } else if (opcode == "broadcast") {  // operand dimension k is output dimension dimensions[k]
    std::vector<Expr> source;
    for (const int64_t d : in.dimensions) source.push_back(index[static_cast<size_t>(d)]);
    value = op.at(0, source);
  } else if (opcode == "reshape" || opcode == "bitcast") {
    value = op.at(0, reshaped(*op.operand_shapes[0], in.shape, index, opcode == "bitcast"));
  } else if (opcode == "transpose") {  // output dimension k is operand dimension dimensions[k]
    std::vector<Expr> source(index.size());
    for (size_t k = 0; k < index.size(); ++k) source[static_cast<size_t>(in.dimensions[k])] = index[k];
    value = op.at(0, source);
  } else if (opcode == "slice") {
    std::vector<Expr> source(index.size());
    for (size_t d = 0; d < index.size(); ++d) {
      const HloSliceDim s = in.op_attributes().slice.at(d);
      source[d] = int_expr(s.start) + index[d] * int_expr(s.stride);
    }
    value = op.at(0, source);
  } else if (opcode == "dynamic-slice") {
    std::vector<Expr> source(index.size());
    for (size_t d = 0; d < index.size(); ++d)
      source[d] = clamped_start(op, d + 1, op.operand_shapes[0]->dims[d], in.shape.dims[d]) + index[d];
    value = op.at(0, source);
  } else if (opcode == "dynamic-update-slice") {
    const HloShape& update = *op.operand_shapes[1];
    Expr inside = Halide::Internal::const_true();
    std::vector<Expr> source(index.size());
    for (size_t d = 0; d < index.size(); ++d) {
      const Expr start = clamped_start(op, d + 2, in.shape.dims[d], update.dims[d]);
      source[d] = Halide::clamp(index[d] - start, 0, int_expr(update.dims[d] - 1));
      inside = inside && index[d] >= start && index[d] < start + int_expr(update.dims[d]);
    }
    value = Halide::select(inside, op.at(1, source), op.at(0, index));
  } else if (opcode == "concatenate") {
    value = concatenate(op, index);
  } else {
    value = pad(op, index);
  }
  Func f(func_name(in.name));
  f(v) = value;
  return f;
}

}  // namespace graphcost::lowering
