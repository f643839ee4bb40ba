// The shape rules of each lowered op (XLA's shape_inference.cc, the parts the lowering relies on):
// a module that breaks one is refused by name here, before Halide would coerce a type silently or
// index out of range.
#include <algorithm>
#include <cstdlib>
#include <set>

#include "common/input_error.h"
#include "lowering/lowering_ops.h"

namespace graphcost::lowering {
namespace {

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t k = 0; k < dims.size(); ++k) text += (k ? "," : "") + std::to_string(dims[k]);
  return text + "]";
}

int64_t elements(const HloShape& shape) {
  int64_t count = 1;
  for (const int64_t d : shape.dims) count *= d;
  return count;
}

class Checker {
 public:
  explicit Checker(const OpContext& op) : op_(op), out_(op.instruction.shape) {}

  void require(bool ok, const std::string& field, const std::string& expected, const std::string& actual) const {
    if (!ok) throw InputError(op_.where, field, expected, actual);
  }
  const HloShape& operand(size_t k) const { return *op_.operand_shapes.at(k); }
  void operand_count(size_t n) const {
    require(op_.operands.size() == n, "operands", std::to_string(n), std::to_string(op_.operands.size()));
  }
  void same_dims(size_t k, const std::vector<int64_t>& dims, const char* what) const {
    require(operand(k).dims == dims, "operand " + std::to_string(k) + " shape", dims_text(dims) + " (" + what + ")",
            dims_text(operand(k).dims));
  }
  void same_type(size_t k, std::string_view type) const {
    require(operand(k).element_type == type, "operand " + std::to_string(k) + " element type", std::string(type),
            std::string(operand(k).element_type));
  }
  void scalar(size_t k) const { same_dims(k, {}, "a scalar"); }
  void dimension_list(const std::vector<int64_t>& list, size_t rank, const std::string& field) const {
    std::set<int64_t> seen;
    for (const int64_t d : list) {
      require(d >= 0 && d < static_cast<int64_t>(rank) && seen.insert(d).second, field, "distinct dimensions below " + std::to_string(rank),
              dims_text(list));
    }
  }

  void elementwise() const {
    const std::string_view opcode = op_.instruction.opcode;
    operand_count(opcode == "select" || opcode == "clamp" ? 3 : is_unary_opcode(opcode) || opcode == "convert" ? 1 : 2);
    // The operand types each op is defined for (XLA's), so that Halide never computes in another
    // type than the result's.
    static const std::set<std::string_view, std::less<>> float_only = {"exponential",
                                                                       "log",
                                                                       "sqrt",
                                                                       "rsqrt",
                                                                       "tanh",
                                                                       "sine",
                                                                       "cosine",
                                                                       "tan",
                                                                       "exponential-minus-one",
                                                                       "log-plus-one",
                                                                       "logistic",
                                                                       "floor",
                                                                       "ceil",
                                                                       "round-nearest-even",
                                                                       "round-nearest-afz",
                                                                       "is-finite",
                                                                       "cbrt",
                                                                       "atan2",
                                                                       "power"};
    static const std::set<std::string_view, std::less<>> bitwise = {"and", "or", "xor", "not"};
    const std::string_view type = operand(opcode == "select" ? 1 : 0).element_type;
    const bool is_float = type.front() == 'f' || type == "bf16";
    if (float_only.count(opcode))
      require(is_float, "element type", "a floating-point type (" + std::string(opcode) + ")", std::string(type));
    if (bitwise.count(opcode))
      require(!is_float, "element type", "pred or an integer type (" + std::string(opcode) + ")", std::string(type));
    for (size_t k = 0; k < op_.operands.size(); ++k) {
      const bool may_be_scalar = (opcode == "clamp" && k != 1) || (opcode == "select" && k == 0);
      if (!(may_be_scalar && operand(k).dims.empty())) same_dims(k, out_.dims, "the result's");
      if (opcode == "select" && k == 0) {
        same_type(0, "pred");
      } else if (opcode == "compare" || opcode == "convert" || opcode == "is-finite") {
        same_type(k, operand(0).element_type);
      } else {
        same_type(k, out_.element_type);
      }
    }
    if (opcode == "compare" || opcode == "is-finite")
      require(out_.element_type == "pred", "element type", "pred", std::string(out_.element_type));
  }

  void data_movement() const {
    const HloInstruction& in = op_.instruction;
    const std::string_view opcode = in.opcode;
    const size_t rank = out_.dims.size();
    if (opcode == "iota") {
      require(in.dimensions.size() == 1 && in.dimensions[0] >= 0 && in.dimensions[0] < static_cast<int64_t>(rank), "iota_dimension",
              "a dimension below " + std::to_string(rank), dims_text(in.dimensions));
      return;
    }
    if (opcode != "concatenate" && opcode != "dynamic-slice" && opcode != "dynamic-update-slice") {
      operand_count(opcode == "pad" ? 2 : 1);
    }
    for (size_t k = 0; k < op_.operands.size(); ++k) {
      const bool index = (opcode == "dynamic-slice" && k >= 1) || (opcode == "dynamic-update-slice" && k >= 2);
      if (index) {
        scalar(k);
        require(operand(k).element_type.front() == 's' || operand(k).element_type.front() == 'u', "operand " + std::to_string(k),
                "an integer start index", std::string(operand(k).element_type));
      } else {
        same_type(k, out_.element_type);
      }
    }
    const HloShape& source = operand(0);
    if (opcode == "broadcast") {
      dimension_list(in.dimensions, rank, "dimensions");
      require(in.dimensions.size() == source.dims.size(), "dimensions", std::to_string(source.dims.size()) + " (the operand's rank)",
              dims_text(in.dimensions));
      for (size_t k = 0; k < in.dimensions.size(); ++k) {
        require(source.dims[k] == out_.dims[static_cast<size_t>(in.dimensions[k])], "dimensions", "operand extents equal to the result's",
                dims_text(source.dims) + " into " + dims_text(out_.dims));
      }
    } else if (opcode == "reshape" || opcode == "bitcast") {
      require(elements(source) == elements(out_), "shape", std::to_string(elements(source)) + " elements (the operand's)",
              std::to_string(elements(out_)));
      require(opcode == "reshape" || source.minor_to_major.size() == source.dims.size(), "layout", "a full layout", "none");
    } else if (opcode == "transpose") {
      dimension_list(in.dimensions, rank, "dimensions");
      require(in.dimensions.size() == rank && source.dims.size() == rank, "dimensions", "a permutation of " + std::to_string(rank),
              dims_text(in.dimensions));
      for (size_t k = 0; k < rank; ++k) {
        require(out_.dims[k] == source.dims[static_cast<size_t>(in.dimensions[k])], "shape", "the operand's dimensions permuted",
                dims_text(out_.dims));
      }
    } else if (opcode == "slice") {
      const std::vector<HloSliceDim>& slice = in.op_attributes().slice;
      require(slice.size() == rank && source.dims.size() == rank, "slice", std::to_string(rank) + " ranges", std::to_string(slice.size()));
      for (size_t d = 0; d < rank; ++d) {
        const HloSliceDim s = slice[d];
        const bool ok = s.start >= 0 && s.start <= s.limit && s.limit <= source.dims[d] && s.stride >= 1 &&
                        out_.dims[d] == (s.limit - s.start + s.stride - 1) / s.stride;
        require(ok, "slice", "ranges within the operand that give the result's shape", dims_text(out_.dims));
      }
    } else if (opcode == "dynamic-slice") {
      operand_count(1 + rank);
      require(source.dims.size() == rank, "shape", "the operand's rank", dims_text(out_.dims));
      for (size_t d = 0; d < rank; ++d)
        require(out_.dims[d] <= source.dims[d], "dynamic_slice_sizes", "at most the operand's extents", dims_text(out_.dims));
    } else if (opcode == "dynamic-update-slice") {
      operand_count(2 + rank);
      same_dims(0, out_.dims, "the result's");
      require(operand(1).dims.size() == rank, "operand 1 shape", "the result's rank", dims_text(operand(1).dims));
      for (size_t d = 0; d < rank; ++d)
        require(operand(1).dims[d] <= out_.dims[d], "operand 1 shape", "within the operand", dims_text(operand(1).dims));
    } else if (opcode == "concatenate") {
      require(in.dimensions.size() == 1 && in.dimensions[0] >= 0 && in.dimensions[0] < static_cast<int64_t>(rank), "dimensions",
              "one dimension below " + std::to_string(rank), dims_text(in.dimensions));
      const size_t axis = static_cast<size_t>(in.dimensions[0]);
      int64_t total = 0;
      for (size_t k = 0; k < op_.operands.size(); ++k) {
        std::vector<int64_t> expected = out_.dims;
        expected[axis] = operand(k).dims.size() == rank ? operand(k).dims[axis] : -1;
        same_dims(k, expected, "the result's but along the axis");
        total += operand(k).dims[axis];
      }
      require(total == out_.dims[axis], "shape", "the operands' sum along the axis, " + std::to_string(total), dims_text(out_.dims));
    } else {  // pad
      scalar(1);
      const std::vector<HloPaddingDim>& padding = in.op_attributes().padding;
      require(padding.size() == rank && source.dims.size() == rank, "padding", std::to_string(rank) + " dimensions",
              std::to_string(padding.size()));
      for (size_t d = 0; d < rank; ++d) {
        const HloPaddingDim p = padding[d];
        const int64_t n = source.dims[d];
        const int64_t limit = int64_t{1} << 30;  // Halide's 32-bit index arithmetic stays exact
        require(std::abs(p.low) < limit && std::abs(p.high) < limit && p.interior < limit, "padding", "values below 2^30",
                std::to_string(p.low) + "_" + std::to_string(p.high) + "_" + std::to_string(p.interior));
        require(p.interior >= 0 && out_.dims[d] == p.low + p.high + n + (n - 1) * p.interior, "padding",
                "low + high + n + (n-1) x interior per dimension", dims_text(out_.dims));
      }
    }
  }

  void reduce() const {
    operand_count(2);
    scalar(1);
    same_type(0, out_.element_type);
    same_type(1, out_.element_type);
    const HloShape& source = operand(0);
    dimension_list(op_.instruction.dimensions, source.dims.size(), "dimensions");
    std::vector<int64_t> kept;
    for (size_t d = 0; d < source.dims.size(); ++d) {
      const auto& reduced = op_.instruction.dimensions;
      if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) == reduced.end()) kept.push_back(source.dims[d]);
    }
    require(out_.dims == kept, "shape", dims_text(kept) + " (the operand's kept dimensions)", dims_text(out_.dims));
  }

  void dot(const std::vector<int64_t>& lhs_batch, const std::vector<int64_t>& rhs_batch, const std::vector<int64_t>& lhs_contracting,
           const std::vector<int64_t>& rhs_contracting) const {
    operand_count(2);
    same_type(1, operand(0).element_type);
    const HloShape &lhs = operand(0), &rhs = operand(1);
    std::vector<int64_t> lhs_named = lhs_batch, rhs_named = rhs_batch;
    lhs_named.insert(lhs_named.end(), lhs_contracting.begin(), lhs_contracting.end());
    rhs_named.insert(rhs_named.end(), rhs_contracting.begin(), rhs_contracting.end());
    dimension_list(lhs_named, lhs.dims.size(), "lhs_batch_dims and lhs_contracting_dims");
    dimension_list(rhs_named, rhs.dims.size(), "rhs_batch_dims and rhs_contracting_dims");
    require(lhs_batch.size() == rhs_batch.size() && lhs_contracting.size() == rhs_contracting.size(), "dimension numbers",
            "as many lhs as rhs batch and contracting dimensions", dims_text(lhs_named) + " vs " + dims_text(rhs_named));
    std::vector<int64_t> expected;
    for (size_t k = 0; k < lhs_named.size(); ++k) {
      require(lhs.dims[static_cast<size_t>(lhs_named[k])] == rhs.dims[static_cast<size_t>(rhs_named[k])], "dimension numbers",
              "equal lhs and rhs extents for each batch and contracting pair", dims_text(lhs.dims) + " vs " + dims_text(rhs.dims));
    }
    for (const int64_t d : lhs_batch) expected.push_back(lhs.dims[static_cast<size_t>(d)]);
    for (const auto& [shape, named] : {std::make_pair(&lhs, &lhs_named), std::make_pair(&rhs, &rhs_named)}) {
      for (size_t d = 0; d < shape->dims.size(); ++d) {
        if (std::find(named->begin(), named->end(), static_cast<int64_t>(d)) == named->end()) expected.push_back(shape->dims[d]);
      }
    }
    require(out_.dims == expected, "shape", dims_text(expected) + " (batch, lhs free, rhs free)", dims_text(out_.dims));
  }

  // Each spatial dimension's window against the operand extent: the output extent it gives
  // (StableHLO's: the operand dilated and padded, then (padded - dilated window) / stride + 1).
  int64_t windowed_extent(const HloWindowDim& w, int64_t extent, const std::string& field) const {
    const int64_t limit = int64_t{1} << 30;  // Halide's 32-bit index arithmetic stays exact
    require(w.size >= 1 && w.stride >= 1 && w.base_dilation >= 1 && w.window_dilation >= 1 && w.size < limit && w.stride < limit &&
                w.base_dilation < limit && w.window_dilation < limit && std::abs(w.padding_low) < limit && std::abs(w.padding_high) < limit,
            field, "size, stride and dilations 1 to 2^30, padding below 2^30",
            "size " + std::to_string(w.size) + " stride " + std::to_string(w.stride) + " pad " + std::to_string(w.padding_low) + "_" +
                std::to_string(w.padding_high) + " dilations " + std::to_string(w.base_dilation) + "/" + std::to_string(w.window_dilation));
    const int64_t padded = (extent - 1) * w.base_dilation + 1 + w.padding_low + w.padding_high;
    const int64_t window = (w.size - 1) * w.window_dilation + 1;
    require(padded < limit && window < limit, field, "a dilated, padded extent below 2^30", std::to_string(padded));
    return padded < window ? 0 : (padded - window) / w.stride + 1;
  }

  void convolution() const {
    operand_count(2);
    same_type(1, operand(0).element_type);
    require(operand(0).element_type != "pred" && out_.element_type != "pred", "element type", "numbers", "pred");
    const HloOpAttributes& attributes = op_.instruction.op_attributes();
    const HloConvolutionDims& c = attributes.convolution_dims;
    const HloShape &lhs = operand(0), &rhs = operand(1);
    const size_t spatial = c.input_spatial.size();
    const size_t rank = spatial + 2;
    require(lhs.dims.size() == rank && rhs.dims.size() == rank && out_.dims.size() == rank && c.kernel_spatial.size() == spatial &&
                c.output_spatial.size() == spatial,
            "dim_labels", "lhs, rhs and output of rank " + std::to_string(rank) + " (2 + spatial dimensions)",
            dims_text(lhs.dims) + ", " + dims_text(rhs.dims) + " -> " + dims_text(out_.dims));
    require(attributes.window.size() == spatial, "window", std::to_string(spatial) + " dimensions (the spatial ones)",
            std::to_string(attributes.window.size()));
    std::vector<int64_t> in = {c.input_batch, c.input_feature}, kernel = {c.kernel_input_feature, c.kernel_output_feature},
                         out = {c.output_batch, c.output_feature};
    in.insert(in.end(), c.input_spatial.begin(), c.input_spatial.end());
    kernel.insert(kernel.end(), c.kernel_spatial.begin(), c.kernel_spatial.end());
    out.insert(out.end(), c.output_spatial.begin(), c.output_spatial.end());
    dimension_list(in, rank, "dim_labels (input)");
    dimension_list(kernel, rank, "dim_labels (kernel)");
    dimension_list(out, rank, "dim_labels (output)");
    const int64_t feature_groups = std::max<int64_t>(1, attributes.feature_group_count);
    const int64_t batch_groups = std::max<int64_t>(1, attributes.batch_group_count);
    const auto dim = [](const HloShape& shape, int64_t d) { return shape.dims[static_cast<size_t>(d)]; };
    const int64_t outputs = dim(rhs, c.kernel_output_feature);
    require(feature_groups == 1 || batch_groups == 1, "feature_group_count, batch_group_count", "one of them 1",
            std::to_string(feature_groups) + ", " + std::to_string(batch_groups));
    require(dim(lhs, c.input_feature) == dim(rhs, c.kernel_input_feature) * feature_groups, "feature_group_count",
            "input features = kernel input features x feature_group_count", dims_text(lhs.dims) + " vs " + dims_text(rhs.dims));
    require(outputs % (feature_groups * batch_groups) == 0 && dim(lhs, c.input_batch) % batch_groups == 0, "group counts",
            "kernel output features and input batch divisible by the group counts", dims_text(lhs.dims) + " vs " + dims_text(rhs.dims));
    std::vector<int64_t> expected(rank);
    expected[static_cast<size_t>(c.output_batch)] = dim(lhs, c.input_batch) / batch_groups;
    expected[static_cast<size_t>(c.output_feature)] = outputs;
    for (size_t s = 0; s < spatial; ++s) {
      const HloWindowDim& w = attributes.window[s];
      require(w.size == dim(rhs, c.kernel_spatial[s]), "window size", "the kernel's spatial extents " + dims_text(rhs.dims),
              std::to_string(w.size) + " (dimension " + std::to_string(s) + ")");
      expected[static_cast<size_t>(c.output_spatial[s])] =
          windowed_extent(w, dim(lhs, c.input_spatial[s]), "window (dimension " + std::to_string(s) + ")");
    }
    require(out_.dims == expected, "shape", dims_text(expected) + " (the convolution's output)", dims_text(out_.dims));
  }

  void reduce_window() const {
    operand_count(2);
    scalar(1);
    same_type(0, out_.element_type);
    same_type(1, out_.element_type);
    const std::vector<HloWindowDim>& window = op_.instruction.op_attributes().window;
    const HloShape& source = operand(0);
    require(window.size() == source.dims.size() || (window.empty() && source.dims.empty()), "window",
            std::to_string(source.dims.size()) + " dimensions (the operand's rank)", std::to_string(window.size()));
    std::vector<int64_t> expected;
    int64_t positions = 1;  // a window's elements: the reduction loop's trip count (Halide's extents are 32-bit)
    for (size_t d = 0; d < window.size(); ++d) {
      expected.push_back(windowed_extent(window[d], source.dims[d], "window (dimension " + std::to_string(d) + ")"));
      positions *= window[d].size;  // each size is below 2^30: no overflow before the check below
      require(positions < (int64_t{1} << 31), "window", "fewer than 2^31 elements in a window", "more");
    }
    require(out_.dims == expected, "shape", dims_text(expected) + " (the windows' count per dimension)", dims_text(out_.dims));
  }

 private:
  const OpContext& op_;
  const HloShape& out_;
};

}  // namespace

void check_shapes(const OpContext& op) {
  const Checker checker(op);
  const std::string_view opcode = op.instruction.opcode;
  if (opcode == "reduce") {
    checker.reduce();
  } else if (opcode == "dot") {
    const HloOpAttributes& attributes = op.instruction.op_attributes();
    const auto dims = [&](const char* key) { return integer_list_text(attributes.text_of(key), op.where, key); };
    checker.dot(dims("lhs_batch_dims"), dims("rhs_batch_dims"), dims("lhs_contracting_dims"), dims("rhs_contracting_dims"));
  } else if (opcode == "convolution") {
    checker.convolution();
  } else if (opcode == "reduce-window") {
    checker.reduce_window();
  } else if (is_elementwise_opcode(opcode)) {
    checker.elementwise();
  } else if (is_data_movement_opcode(opcode)) {
    checker.data_movement();
  }
}

}  // namespace graphcost::lowering
