// Convolution and reduce-window as Halide (lowering_ops.h): the ops that slide a window over an
// operand. Semantics are StableHLO's (and XLA's): an output position o of a spatial dimension reads
// the operand at o * stride - padding_low + k * window_dilation for window position k, in the
// operand dilated by base_dilation (lhs_dilate); what falls in the padding or between dilated
// elements is zero for a convolution and the init value for a reduce-window.
#include <string>

#include "common/input_error.h"
#include "lowering/hlo_to_halide.h"
#include "lowering/lowering_ops.h"

namespace graphcost::lowering {

using Halide::Expr;
using Halide::Func;
using Halide::Var;

namespace {

// Where output position `at` with window position `k` reads along one spatial dimension of an
// operand of `extent` elements: the index (clamped, so the read is always in bounds) and whether
// the read is a real element (not padding, not a hole of the base dilation).
struct WindowRead {
  Expr index;
  Expr real;
};

WindowRead window_read(const HloWindowDim& window, const Expr& at, const Expr& k, int64_t extent) {
  Expr position =
      at * static_cast<int>(window.stride) - static_cast<int>(window.padding_low) + k * static_cast<int>(window.window_dilation);
  Expr real = Halide::Internal::const_true();
  if (window.base_dilation > 1) {
    const int dilation = static_cast<int>(window.base_dilation);
    real = position % dilation == 0;  // Halide's % is Euclidean: exact for negative positions too
    position = position / dilation;
  }
  real = real && position >= 0 && position < static_cast<int>(extent);
  return {Halide::clamp(position, 0, static_cast<int>(extent) - 1), real};
}

// The window's dimension d, XLA's defaults when the attribute leaves it out (no spatial dimension).
HloWindowDim window_dim(const HloOpAttributes& attributes, size_t d) {
  return d < attributes.window.size() ? attributes.window[d] : HloWindowDim{};
}

}  // namespace

Func lower_convolution(const OpContext& op) {
  const HloInstruction& in = op.instruction;
  const HloOpAttributes& attributes = in.op_attributes();
  const HloConvolutionDims& dims = attributes.convolution_dims;
  const HloShape& lhs = *op.operand_shapes[0];
  const HloShape& rhs = *op.operand_shapes[1];
  const size_t spatial = dims.input_spatial.size();
  const int64_t feature_groups = std::max<int64_t>(1, attributes.feature_group_count);
  const int64_t batch_groups = std::max<int64_t>(1, attributes.batch_group_count);
  const int64_t group_inputs = rhs.dims[static_cast<size_t>(dims.kernel_input_feature)];
  const int64_t outputs = rhs.dims[static_cast<size_t>(dims.kernel_output_feature)];
  // The reduction: the kernel's input features, then its spatial positions.
  Halide::Region ranges = {{0, static_cast<int>(group_inputs)}};
  for (size_t s = 0; s < spatial; ++s) ranges.emplace_back(0, static_cast<int>(window_dim(attributes, s).size));
  Halide::RDom r(ranges);
  const std::vector<Var> v = index_vars(in.shape.dims.size());
  const Var& feature = v[static_cast<size_t>(dims.output_feature)];
  std::vector<Expr> lhs_index(lhs.dims.size()), rhs_index(rhs.dims.size());
  // A feature group g (output features g * outputs / groups onwards) reads input features
  // g * group_inputs onwards; a batch group likewise reads its slice of the input batch.
  const Expr feature_group = feature_groups > 1 ? feature / static_cast<int>(outputs / feature_groups) : Expr(0);
  lhs_index[static_cast<size_t>(dims.input_feature)] = feature_group * static_cast<int>(group_inputs) + r[0];
  const Expr batch_group = batch_groups > 1 ? feature / static_cast<int>(outputs / batch_groups) : Expr(0);
  const int64_t group_batch = lhs.dims[static_cast<size_t>(dims.input_batch)] / batch_groups;
  lhs_index[static_cast<size_t>(dims.input_batch)] =
      batch_group * static_cast<int>(group_batch) + v[static_cast<size_t>(dims.output_batch)];
  rhs_index[static_cast<size_t>(dims.kernel_input_feature)] = r[0];
  rhs_index[static_cast<size_t>(dims.kernel_output_feature)] = feature;
  Expr real = Halide::Internal::const_true();
  for (size_t s = 0; s < spatial; ++s) {
    const HloWindowDim window = window_dim(attributes, s);
    const Expr k = r[static_cast<int>(s + 1)];
    const size_t input_dim = static_cast<size_t>(dims.input_spatial[s]);
    const WindowRead read = window_read(window, v[static_cast<size_t>(dims.output_spatial[s])], k, lhs.dims[input_dim]);
    lhs_index[input_dim] = read.index;
    real = real && read.real;
    rhs_index[static_cast<size_t>(dims.kernel_spatial[s])] = window.reversal ? static_cast<int>(window.size - 1) - k : k;
  }
  const Halide::Type type = halide_type(in.shape.element_type, op.where);
  const Halide::Type accumulator = accumulator_type(type);
  const Expr product = Halide::cast(accumulator, op.at(0, lhs_index)) * Halide::cast(accumulator, op.at(1, rhs_index));
  Func sum(func_name(std::string(in.name) + (accumulator == type ? "" : "_sum")));
  sum(v) = Halide::Internal::make_zero(accumulator);
  sum(v) += Halide::select(real, product, Halide::Internal::make_zero(accumulator));
  if (accumulator == type) return sum;
  Func f(func_name(in.name));
  f(v) = Halide::cast(type, sum(v));
  return f;
}

Func lower_reduce_window(const OpContext& op, const HloComputation& to_apply) {
  const HloInstruction& in = op.instruction;
  const HloOpAttributes& attributes = in.op_attributes();
  const HloShape& input = *op.operand_shapes[0];
  const size_t rank = input.dims.size();
  Halide::Region ranges;
  for (size_t d = 0; d < rank; ++d) ranges.emplace_back(0, static_cast<int>(window_dim(attributes, d).size));
  const std::vector<Var> v = index_vars(rank);
  std::vector<Expr> index(rank);
  Expr real = Halide::Internal::const_true();
  Func f(func_name(in.name));
  const Expr init = op.at(1, {});
  f(v) = init;
  if (rank == 0) {  // a window over a scalar: the init value and the scalar, combined once
    f(v) = combine(reducer_opcode(to_apply), f(v), op.at(0, {}));
    return f;
  }
  Halide::RDom r(ranges);
  for (size_t d = 0; d < rank; ++d) {
    const WindowRead read = window_read(window_dim(attributes, d), v[d], r[static_cast<int>(d)], input.dims[d]);
    index[d] = read.index;
    real = real && read.real;
  }
  // Padding and the holes of a base dilation hold the init value (StableHLO's reduce_window pads
  // with it), so they take part in the reduction as it.
  f(v) = combine(reducer_opcode(to_apply), f(v), Halide::select(real, op.at(0, index), init));
  return f;
}

}  // namespace graphcost::lowering
