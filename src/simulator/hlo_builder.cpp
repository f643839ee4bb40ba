#include "simulator/hlo_builder.h"

#include <cassert>
#include <iterator>
#include <numeric>

#include "data/node_features.h"
#include "data/opcodes.h"

namespace graphcost {
namespace {

using namespace node_column;  // the column constants (data/node_features.h)
// Columns holding a product over a possibly empty list: 1 when empty (as the dataset's encoder).
constexpr int kEmptyProductColumns[] = {28, 44, 52, 60, 68, 76, 84, 112, 116, 120, 124, 128, 132};

int64_t element_count(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<int64_t>());
}

void set_block(std::array<float, 140>& f, int first, const std::vector<int64_t>& values) {
  float sum = 0, product = 1;
  for (size_t i = 0; i < values.size() && i < 6; ++i) {
    f[first + static_cast<int>(i)] = static_cast<float>(values[i]);
    sum += static_cast<float>(values[i]);
    product *= static_cast<float>(values[i]);
  }
  f[first + 6] = sum;
  f[first + 7] = product;
}

}  // namespace

int element_bytes(ElementType type) {
  // Bytes per element of each type column (2..20), in the featurizer's order: invalid, pred, s8,
  // s16, s32, s64, u8, u16, u32, u64, f16, f32, f64, bf16, c64, c128, tuple, opaque, token.
  static constexpr int kBytes[] = {4, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 2, 8, 16, 0, 0, 0};
  const int index = static_cast<int>(type) - kElementTypeFirstColumn;
  return index >= 0 && index < static_cast<int>(std::size(kBytes)) ? kBytes[index] : 4;
}

std::vector<int> row_major_layout(size_t rank) {
  std::vector<int> layout(rank);
  for (size_t i = 0; i < rank; ++i) layout[i] = static_cast<int>(rank - 1 - i);
  return layout;
}

void HloBuilder::begin_computation() { computation_starts_.push_back(static_cast<int64_t>(nodes_.size())); }

void HloBuilder::set_shape_features(SynthNode& node) {
  auto& f = node.features;
  for (int column : kEmptyProductColumns) f[column] = 1;
  f[static_cast<int>(node.type)] = 1;
  float sum = 0, product = 1;
  for (size_t i = 0; i < node.dims.size() && i < 6; ++i) {
    f[kShapeDims + static_cast<int>(i)] = static_cast<float>(node.dims[i]);
    sum += static_cast<float>(node.dims[i]);
    product *= static_cast<float>(node.dims[i]);
  }
  f[kShapeSum] = sum;
  f[kShapeProduct] = product;
  for (size_t i = 0; i < node.layout.size() && i < 6; ++i) f[kMinorToMajor + static_cast<int>(i)] = static_cast<float>(node.layout[i]);
}

void HloBuilder::set_window_features(SynthNode& node, const std::vector<int64_t>& window, const std::vector<int64_t>& stride,
                                     const std::vector<int64_t>& padding) {
  auto& f = node.features;
  const std::vector<int64_t> ones(window.size(), 1);
  set_block(f, kWindowSize, window);
  set_block(f, kWindowStride, stride);
  set_block(f, kPaddingLow, padding);
  set_block(f, kPaddingHigh, padding);
  set_block(f, kWindowDilation, ones);
  set_block(f, kBaseDilation, ones);
  f[kReversalFalse] = static_cast<float>(window.size());
}

// Node references die when add() grows the vector: builders copy what they read before adding.
int HloBuilder::add(SynthNode node) {
  if (computation_starts_.empty()) begin_computation();
  for (int32_t operand : node.operands) assert(operand >= 0 && operand < node_count());
  if (node.layout.empty() && node.type != ElementType::Tuple) {
    const size_t rank = node.dims.size();
    const bool activation =
        node.opcode == opcode::kParameter || node.opcode == opcode::kConvolution || node.opcode == opcode_id("reduce-window");
    if (convolution_layouts_ && activation && rank >= 4) {
      node.layout = {static_cast<int>(rank - 1), 0};
      for (size_t d = rank - 2; d >= 1; --d) node.layout.push_back(static_cast<int>(d));
    } else {
      node.layout = row_major_layout(rank);
    }
  }
  set_shape_features(node);
  nodes_.push_back(std::move(node));
  return node_count() - 1;
}

int HloBuilder::parameter(std::vector<int64_t> dims, ElementType type, int number) {
  SynthNode node;
  node.opcode = opcode::kParameter;
  node.type = type;
  node.dims = std::move(dims);
  node.features[kParameterNumber] = static_cast<float>(number);
  return add(std::move(node));
}

int HloBuilder::constant(std::vector<int64_t> dims, ElementType type) {
  SynthNode node;
  node.opcode = opcode_id("constant");
  node.type = type;
  node.dims = std::move(dims);
  return add(std::move(node));
}

int HloBuilder::elementwise(int opcode_value, std::vector<int> operands, ElementType type_override, bool keep_type) {
  const SynthNode first = node(operands.front());
  SynthNode node;
  node.opcode = opcode_value;
  node.type = keep_type ? first.type : type_override;
  node.dims = first.dims;
  node.layout = first.layout;
  node.operands.assign(operands.begin(), operands.end());
  node.flops = static_cast<double>(element_count(node.dims));
  return add(std::move(node));
}

int HloBuilder::broadcast(int operand, std::vector<int64_t> dims, std::vector<int> dimensions) {
  SynthNode node;
  node.opcode = opcode::kBroadcast;
  node.type = this->node(operand).type;
  node.dims = std::move(dims);
  node.operands = {operand};
  for (size_t i = 0; i < dimensions.size() && i < 6; ++i)
    node.features[kDimensions + static_cast<int>(i)] = static_cast<float>(dimensions[i]);
  return add(std::move(node));
}

int HloBuilder::convolution(int input, int kernel, std::vector<int64_t> window, std::vector<int64_t> stride, int64_t feature_groups) {
  const SynthNode in = node(input);
  const SynthNode k = node(kernel);
  const size_t spatial = window.size();
  assert(in.dims.size() == spatial + 2 && k.dims.size() == spatial + 2);
  SynthNode node;
  node.opcode = opcode::kConvolution;
  node.type = in.type;
  node.mxu = true;
  node.dims.push_back(in.dims[0]);
  std::vector<int64_t> padding(spatial);
  for (size_t s = 0; s < spatial; ++s) {
    padding[s] = window[s] / 2;  // "same" padding
    node.dims.push_back((in.dims[1 + s] + stride[s] - 1) / stride[s]);
  }
  const int64_t out_features = k.dims[spatial + 1];
  node.dims.push_back(out_features);
  node.operands = {input, kernel};
  node.input_contracting_dim = static_cast<int>(spatial + 1);
  node.kernel_contracting_dim = static_cast<int>(spatial);
  node.output_feature_dim = static_cast<int>(spatial + 1);
  const double window_volume = static_cast<double>(element_count(window));
  node.flops = 2.0 * static_cast<double>(element_count(node.dims)) * window_volume * static_cast<double>(k.dims[spatial]);
  set_window_features(node, window, stride, padding);
  auto& f = node.features;
  const int rank = static_cast<int>(spatial + 2);
  f[kConvolutionDims + 0] = 0;                             // input batch
  f[kConvolutionDims + 1] = static_cast<float>(rank - 1);  // input feature
  for (size_t s = 0; s < spatial && s < 4; ++s) f[kConvolutionDims + 2 + static_cast<int>(s)] = static_cast<float>(1 + s);
  f[kConvolutionDims + 6] = static_cast<float>(spatial);      // kernel input feature
  f[kConvolutionDims + 7] = static_cast<float>(spatial + 1);  // kernel output feature
  for (size_t s = 0; s < spatial && s < 4; ++s) f[kConvolutionDims + 8 + static_cast<int>(s)] = static_cast<float>(s);
  f[kConvolutionDims + 12] = 0;                             // output batch
  f[kConvolutionDims + 13] = static_cast<float>(rank - 1);  // output feature
  f[kFeatureGroups] = static_cast<float>(feature_groups);
  f[kBatchGroups] = 1;
  return add(std::move(node));
}

int HloBuilder::dot(int lhs, int rhs) {
  const SynthNode a = node(lhs);
  const SynthNode b = node(rhs);
  assert(a.dims.size() >= 2 && b.dims.size() == a.dims.size());
  SynthNode node;
  node.opcode = opcode::kDot;
  node.type = a.type;
  node.mxu = true;
  node.dims.assign(a.dims.begin(), a.dims.end() - 1);
  node.dims.push_back(b.dims.back());
  node.operands = {lhs, rhs};
  const int rank = static_cast<int>(a.dims.size());
  node.input_contracting_dim = rank - 1;
  node.kernel_contracting_dim = rank - 2;
  node.output_feature_dim = rank - 1;
  node.flops = 2.0 * static_cast<double>(element_count(node.dims)) * static_cast<double>(a.dims.back());
  // `dimensions` carries the contracting dims of lhs and rhs (as the encoder flattens them).
  node.features[kDimensions] = static_cast<float>(rank - 1);
  node.features[kDimensions + 1] = static_cast<float>(rank - 2);
  return add(std::move(node));
}

int HloBuilder::reshape(int operand, std::vector<int64_t> dims) {
  SynthNode node;
  node.opcode = opcode::kReshape;
  node.type = this->node(operand).type;
  assert(element_count(dims) == element_count(this->node(operand).dims));
  node.dims = std::move(dims);
  node.operands = {operand};
  return add(std::move(node));
}

int HloBuilder::transpose(int operand, std::vector<int> permutation) {
  const SynthNode in = node(operand);
  SynthNode node;
  node.opcode = opcode_id("transpose");
  node.type = in.type;
  for (int axis : permutation) node.dims.push_back(in.dims[static_cast<size_t>(axis)]);
  node.operands = {operand};
  for (size_t i = 0; i < permutation.size() && i < 6; ++i)
    node.features[kDimensions + static_cast<int>(i)] = static_cast<float>(permutation[i]);
  return add(std::move(node));
}

int HloBuilder::reduce(int operand, std::vector<int> reduced_dims) {
  const SynthNode in = node(operand);
  SynthNode node;
  node.opcode = opcode_id("reduce");
  node.type = in.type;
  for (size_t d = 0; d < in.dims.size(); ++d) {
    bool reduced = false;
    for (int r : reduced_dims) reduced = reduced || r == static_cast<int>(d);
    if (!reduced) node.dims.push_back(in.dims[d]);
  }
  const int init = constant({}, in.type);
  node.operands = {operand, init};
  node.flops = static_cast<double>(element_count(in.dims));
  for (size_t i = 0; i < reduced_dims.size() && i < 6; ++i)
    node.features[kDimensions + static_cast<int>(i)] = static_cast<float>(reduced_dims[i]);
  return add(std::move(node));
}

int HloBuilder::reduce_window(int operand, std::vector<int64_t> window, std::vector<int64_t> stride) {
  const SynthNode in = node(operand);
  SynthNode node;
  node.opcode = opcode_id("reduce-window");
  node.type = in.type;
  node.layout = in.layout;
  for (size_t d = 0; d < in.dims.size(); ++d) node.dims.push_back((in.dims[d] + stride[d] - 1) / stride[d]);
  const int init = constant({}, in.type);
  node.operands = {operand, init};
  node.flops = static_cast<double>(element_count(node.dims) * element_count(window));
  set_window_features(node, window, stride, std::vector<int64_t>(window.size(), 0));
  return add(std::move(node));
}

int HloBuilder::concatenate(std::vector<int> operands, int dimension) {
  SynthNode node;
  node.opcode = opcode_id("concatenate");
  node.type = this->node(operands.front()).type;
  node.dims = this->node(operands.front()).dims;
  node.layout = this->node(operands.front()).layout;
  node.dims[static_cast<size_t>(dimension)] = 0;
  for (int operand : operands) node.dims[static_cast<size_t>(dimension)] += this->node(operand).dims[static_cast<size_t>(dimension)];
  node.operands.assign(operands.begin(), operands.end());
  node.features[kDimensions] = static_cast<float>(dimension);
  return add(std::move(node));
}

int HloBuilder::tuple(std::vector<int> operands) {
  SynthNode node;
  node.opcode = opcode::kTuple;
  node.type = ElementType::Tuple;
  node.operands.assign(operands.begin(), operands.end());
  node.features[kTupleSize] = static_cast<float>(operands.size());
  return add(std::move(node));
}

int HloBuilder::get_tuple_element(int operand, std::vector<int64_t> dims, ElementType type, int index) {
  SynthNode node;
  node.opcode = opcode::kGetTupleElement;
  node.type = type;
  node.dims = std::move(dims);
  node.operands = {operand};
  node.features[kDimensions] = static_cast<float>(index);
  return add(std::move(node));
}

int HloBuilder::while_loop(int init, std::vector<int64_t> dims) {
  SynthNode node;
  node.opcode = opcode::kWhile;
  node.type = ElementType::Tuple;
  node.dims = std::move(dims);
  node.operands = {init};
  node.features[kTupleSize] = 2;
  return add(std::move(node));
}

int HloBuilder::compare(int lhs, int rhs) { return elementwise(opcode_id("compare"), {lhs, rhs}, ElementType::Pred, false); }

int HloBuilder::fusion(std::vector<int> operands, std::vector<int64_t> dims, ElementType type) {
  SynthNode node;
  node.opcode = opcode::kFusion;
  node.type = type;
  node.dims = std::move(dims);
  node.operands.assign(operands.begin(), operands.end());
  node.flops = static_cast<double>(element_count(node.dims));
  return add(std::move(node));
}

void HloBuilder::mark_root(int id) { nodes_[static_cast<size_t>(id)].features[0] = 1; }

TpuGraph HloBuilder::to_graph(GraphKind kind) const {
  TpuGraph graph;
  graph.kind = kind;
  graph.node_count = node_count();
  graph.node_features.reserve(nodes_.size() * 140);
  for (const SynthNode& n : nodes_) {
    graph.node_features.insert(graph.node_features.end(), n.features.begin(), n.features.end());
    graph.node_opcodes.push_back(static_cast<uint8_t>(n.opcode));
  }
  for (size_t consumer = 0; consumer < nodes_.size(); ++consumer) {
    for (int32_t producer : nodes_[consumer].operands) graph.edges.push_back({static_cast<int32_t>(consumer), producer});
  }
  graph.node_splits = computation_starts_;
  graph.node_splits.push_back(node_count());
  return graph;
}

}  // namespace graphcost
