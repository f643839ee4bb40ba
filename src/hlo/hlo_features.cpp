#include "hlo/hlo_features.h"

#include "common/checked_arithmetic.h"
#include "common/internal_error.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace graphcost {
namespace {

// First column of each block (tpugraphs.md's column list).
using namespace node_column;  // the column constants (data/node_features.h)

using Row = std::array<float, kNodeFeatureCount>;

// The dataset's FixedNumericSequenceFeatures<K>: the first K of `count` values (0-padded), then the
// sum and the product of all of them (an empty list multiplies to 1), in 64-bit integers as the
// featurizer computes them. `value(i)` gives value i. Readers refuse what overflows
// (field_beyond_64_bits), so every value written is finite.
template <typename Value>
void sequence_with_aggregates(Row& row, int first, int k, size_t count, Value value) {
  for (size_t i = 0; i < count && i < static_cast<size_t>(k); ++i) row[static_cast<size_t>(first) + i] = static_cast<float>(value(i));
  const std::optional<SumAndProduct> aggregates = checked_sum_and_product(count, value);
  check_invariant(aggregates.has_value(), "an instruction's attribute values were checked to fit 64 bits");
  row[static_cast<size_t>(first + k)] = static_cast<float>(aggregates->sum);
  row[static_cast<size_t>(first + k + 1)] = static_cast<float>(aggregates->product);
}
template <typename T>
void sequence_with_aggregates(Row& row, int first, int k, const std::vector<T>& values) {
  sequence_with_aggregates(row, first, k, values.size(), [&](size_t i) { return values[i]; });
}

// FixedNumericSequenceFeaturesNoAggregate<K>: the first K values, 0-padded.
template <typename Values>
void sequence(Row& row, int first, int k, const Values& values) {
  size_t i = 0;
  for (const auto value : values) {
    if (i == static_cast<size_t>(k)) break;
    row[static_cast<size_t>(first) + i++] = static_cast<float>(value);
  }
}

template <typename Member>
void window_field(Row& row, int first, const std::vector<HloWindowDim>& window, Member member) {
  sequence_with_aggregates(row, first, 6, window.size(), [&](size_t i) { return window[i].*member; });
}

}  // namespace

int64_t group_count(const HloInstruction& instruction, int64_t written) {
  if (written >= 0) return written;
  return instruction.opcode == "convolution" || instruction.opcode == "custom-call" ? 1 : 0;
}

const char* field_beyond_64_bits(const HloInstruction& instruction) {
  const HloOpAttributes& a = instruction.op_attributes();
  const auto fits = [](size_t count, auto value) { return checked_sum_and_product(count, value).has_value(); };
  const auto& w = a.window;
  if (!fits(w.size(), [&](size_t i) { return w[i].size; })) return "window size";
  if (!fits(w.size(), [&](size_t i) { return w[i].stride; })) return "window stride";
  if (!fits(w.size(), [&](size_t i) { return w[i].padding_low; })) return "window padding low";
  if (!fits(w.size(), [&](size_t i) { return w[i].padding_high; })) return "window padding high";
  if (!fits(w.size(), [&](size_t i) { return w[i].window_dilation; })) return "window rhs_dilate";
  if (!fits(w.size(), [&](size_t i) { return w[i].base_dilation; })) return "window lhs_dilate";
  const auto& s = a.slice;
  if (!fits(s.size(), [&](size_t i) { return s[i].start; })) return "slice start";
  if (!fits(s.size(), [&](size_t i) { return s[i].stride; })) return "slice stride";
  if (!fits(s.size(), [&](size_t i) { return s[i].limit; })) return "slice limit";
  if (!fits(a.dynamic_slice_sizes.size(), [&](size_t i) { return a.dynamic_slice_sizes[i]; })) return "dynamic_slice_sizes";
  const auto& p = a.padding;
  if (!fits(p.size(), [&](size_t i) { return p[i].low; })) return "padding low";
  if (!fits(p.size(), [&](size_t i) { return p[i].high; })) return "padding high";
  const auto& d = instruction.shape.dims;
  if (!fits(d.size(), [&](size_t i) { return d[i]; })) return "shape dimensions";
  return nullptr;
}

int element_type_column(std::string_view element_type) {
  // PRIMITIVE_TYPE_FEATURES of the dataset's featurizer, in its order (columns 2..20).
  static constexpr const char* kTypeNames[] = {"invalid", "pred", "s8",  "s16",  "s32", "s64",  "u8",    "u16",    "u32",  "u64",
                                               "f16",     "f32",  "f64", "bf16", "c64", "c128", "tuple", "opaque", "token"};
  for (size_t i = 0; i < std::size(kTypeNames); ++i) {
    if (element_type == kTypeNames[i]) return kElementTypes + static_cast<int>(i);
  }
  return -1;
}

Row hlo_node_features(const HloInstruction& instruction, bool is_root) {
  Row row{};
  const HloShape& shape = instruction.shape;
  row[kIsRoot] = is_root ? 1.0f : 0.0f;
  const int type_column = element_type_column(shape.element_type);
  if (type_column >= 0) row[static_cast<size_t>(type_column)] = 1;
  sequence_with_aggregates(row, kShapeDims, 6, shape.dims);  // a tuple has no dims: 0s, product 1
  row[kTupleSize] = static_cast<float>(shape.elements.size());
  row[kParameterNumber] = static_cast<float>(std::max<int64_t>(0, instruction.parameter_number));
  sequence(row, kDimensions, 6, instruction.dimensions);

  const HloOpAttributes& attributes = instruction.op_attributes();
  const std::vector<HloWindowDim>& window = attributes.window;
  window_field(row, kWindowSize, window, &HloWindowDim::size);
  window_field(row, kWindowStride, window, &HloWindowDim::stride);
  window_field(row, kPaddingLow, window, &HloWindowDim::padding_low);
  window_field(row, kPaddingHigh, window, &HloWindowDim::padding_high);
  window_field(row, kWindowDilation, window, &HloWindowDim::window_dilation);
  window_field(row, kBaseDilation, window, &HloWindowDim::base_dilation);
  int reversed = 0;
  for (size_t d = 0; d < window.size(); ++d) {
    if (d < 6) row[kReversal + d] = window[d].reversal ? 1.0f : 0.0f;
    reversed += window[d].reversal ? 1 : 0;
  }
  row[kReversalTrue] = static_cast<float>(reversed);
  row[kReversalFalse] = static_cast<float>(static_cast<int>(window.size()) - reversed);

  if (attributes.has_convolution_dims) {
    const HloConvolutionDims& dims = attributes.convolution_dims;
    row[kInputBatch] = static_cast<float>(dims.input_batch);
    row[kInputFeature] = static_cast<float>(dims.input_feature);
    sequence(row, kInputSpatial, 4, dims.input_spatial);
    row[kKernelInputFeature] = static_cast<float>(dims.kernel_input_feature);
    row[kKernelOutputFeature] = static_cast<float>(dims.kernel_output_feature);
    sequence(row, kKernelSpatial, 4, dims.kernel_spatial);
    row[kOutputBatch] = static_cast<float>(dims.output_batch);
    row[kOutputFeature] = static_cast<float>(dims.output_feature);
  }
  row[kFeatureGroups] = static_cast<float>(group_count(instruction, attributes.feature_group_count));
  row[kBatchGroups] = static_cast<float>(group_count(instruction, attributes.batch_group_count));

  const std::vector<HloSliceDim>& slice = attributes.slice;
  sequence_with_aggregates(row, kSliceStart, 2, slice.size(), [&](size_t i) { return slice[i].start; });
  sequence_with_aggregates(row, kSliceStride, 2, slice.size(), [&](size_t i) { return slice[i].stride; });
  sequence_with_aggregates(row, kSliceLimit, 2, slice.size(), [&](size_t i) { return slice[i].limit; });
  sequence_with_aggregates(row, kDynamicSliceSizes, 2, attributes.dynamic_slice_sizes);
  const std::vector<HloPaddingDim>& padding = attributes.padding;
  sequence_with_aggregates(row, kPadLow, 2, padding.size(), [&](size_t i) { return padding[i].low; });
  sequence_with_aggregates(row, kPadHigh, 2, padding.size(), [&](size_t i) { return padding[i].high; });
  row[kIsStable] = instruction.is_stable ? 1.0f : 0.0f;
  if (!shape.is_tuple()) sequence(row, kMinorToMajor, 6, shape.minor_to_major);  // a tuple's proto has no layout
  return row;
}

}  // namespace graphcost
