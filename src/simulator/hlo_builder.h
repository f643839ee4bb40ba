// HloBuilder: assembles a synthetic XLA HLO graph node by node, in topological order (operands
// first), filling each node's 140 TpuGraphs features the way the dataset's encoder does: shape,
// element type, window, convolution dimension numbers, `dimensions`, minor-to-major layout
// (0-padded), products of empty lists as 1. It also keeps what the cost simulator needs per node
// (flops, which operand dimensions an MXU op contracts), which the npz files do not carry.
//
// Logical dimension conventions: convolution input (N, spatial..., C), kernel (spatial..., Cin,
// Cout), output (N, spatial'..., Cout); dot lhs (batch..., M, K), rhs (batch..., K, N).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "data/tpu_graph.h"

namespace graphcost {

// Columns of the element-type one-hot (node_feat 2..20). The builder uses the named ones; a file's
// nodes may carry any column (simulator/program_from_graph.h).
enum class ElementType : int { Pred = 3, S32 = 6, F32 = 13, BF16 = 15, Tuple = 18 };
int element_bytes(ElementType type);  // every column 2..20: 1 for pred/s8/u8 ... 16 for c128, 0 for tuple/opaque/token

struct SynthNode {
  int opcode = 0;
  ElementType type = ElementType::F32;
  std::vector<int64_t> dims;
  std::vector<int> layout;  // minor_to_major, a full permutation (empty for scalars/tuples)
  std::vector<int32_t> operands;
  double flops = 0;
  bool mxu = false;                 // convolution or dot: runs on the matrix unit
  int input_contracting_dim = -1;   // operand 0 dim that the MXU contracts (feature / K)
  int kernel_contracting_dim = -1;  // operand 1 dim that the MXU contracts
  int output_feature_dim = -1;      // output dim of the MXU's output channels (Cout / N)
  int kernel_output_dim = -1;       // operand 1 dim of the output channels; -1: its last (the builder's)
  std::array<float, 140> features{};
};

class HloBuilder {
 public:
  // Starts a new HLO computation (an entry of node_splits).
  void begin_computation();
  // Default layout of rank >= 4 activations (parameters, convolutions, pooling): feature dim
  // minor, batch second-minor, then spatial: XLA's usual TPU convolution layout {3,0,2,1}.
  // Otherwise row-major.
  void use_convolution_layouts(bool enabled) { convolution_layouts_ = enabled; }

  int parameter(std::vector<int64_t> dims, ElementType type, int number);
  int constant(std::vector<int64_t> dims, ElementType type);
  // Elementwise op (add, multiply, maximum, exponential, ...): shape and layout of operand 0.
  int elementwise(int opcode, std::vector<int> operands, ElementType type_override = ElementType::F32, bool keep_type = true);
  int broadcast(int operand, std::vector<int64_t> dims, std::vector<int> dimensions);
  int convolution(int input, int kernel, std::vector<int64_t> window, std::vector<int64_t> stride, int64_t feature_groups = 1);
  int dot(int lhs, int rhs);
  int reshape(int operand, std::vector<int64_t> dims);
  int transpose(int operand, std::vector<int> permutation);
  int reduce(int operand, std::vector<int> reduced_dims);
  int reduce_window(int operand, std::vector<int64_t> window, std::vector<int64_t> stride);
  int concatenate(std::vector<int> operands, int dimension);
  int tuple(std::vector<int> operands);
  int get_tuple_element(int operand, std::vector<int64_t> dims, ElementType type, int index);
  int while_loop(int init, std::vector<int64_t> dims);
  int compare(int lhs, int rhs);
  int fusion(std::vector<int> operands, std::vector<int64_t> dims, ElementType type);
  void mark_root(int node);

  const SynthNode& node(int id) const { return nodes_[static_cast<size_t>(id)]; }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  const std::vector<SynthNode>& nodes() const { return nodes_; }
  const std::vector<int64_t>& computation_starts() const { return computation_starts_; }

  // The TpuGraph skeleton: node_feat, node_opcode, edge_index, node_splits (no configs yet).
  TpuGraph to_graph(GraphKind kind) const;

 private:
  int add(SynthNode node);
  static void set_shape_features(SynthNode& node);
  static void set_window_features(SynthNode& node, const std::vector<int64_t>& window, const std::vector<int64_t>& stride,
                                  const std::vector<int64_t>& padding);

  std::vector<SynthNode> nodes_;
  std::vector<int64_t> computation_starts_;
  bool convolution_layouts_ = false;
};

// The row-major minor_to_major of a rank: {rank-1, ..., 0}.
std::vector<int> row_major_layout(size_t rank);

}  // namespace graphcost
