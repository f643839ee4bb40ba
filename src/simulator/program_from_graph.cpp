#include "simulator/program_from_graph.h"

#include <algorithm>
#include <cmath>

#include "common/input_error.h"
#include "data/opcodes.h"

namespace graphcost {
namespace {

using namespace node_column;

double element_count(const std::vector<int64_t>& dims) {
  double count = 1;
  for (int64_t d : dims) count *= static_cast<double>(d);
  return count;
}

constexpr int kOutputBoundsColumn = 8;  // config_feat 8..13: tiles per output dim

// "node 12 (convolution.3) shape_dimensions_1": the instruction's name too when the file has names.
std::string node_field(const TpuGraph& graph, int32_t node, const char* field) {
  std::string text = "node " + std::to_string(node);
  if (!graph.names.empty()) text += " (" + excerpt(graph.names.instructions[static_cast<size_t>(node)]) + ")";
  return text + " " + field;
}

// A feature that must hold a whole number in [low, high].
int64_t whole_feature(const TpuGraph& graph, int32_t node, int column, int64_t low, int64_t high) {
  const float value = graph.node_feature(node, column);
  if (!std::isfinite(value) || value != std::floor(value) || value < static_cast<float>(low) || value > static_cast<float>(high)) {
    throw InputError(graph.source, node_field(graph, node, node_feature_name(column).c_str()),
                     "a whole number in [" + std::to_string(low) + ", " + std::to_string(high) + "]", std::to_string(value));
  }
  return static_cast<int64_t>(value);
}

ElementType element_type_of(const TpuGraph& graph, int32_t node) {
  for (int column = kElementTypes; column < kShapeDims; ++column) {
    if (graph.node_feature(node, column) == 1) return static_cast<ElementType>(column);
  }
  return ElementType::F32;  // no type marked: priced as 4-byte elements
}

// Shape dims: the leading non-zero entries of shape_dimensions (a scalar or a tuple has none).
std::vector<int64_t> dims_of(const TpuGraph& graph, int32_t node) {
  std::vector<int64_t> dims;
  for (int i = 0; i < 6; ++i) {
    if (graph.node_feature(node, kShapeDims + i) == -1) {
      throw InputError(graph.source, node_field(graph, node, node_feature_name(kShapeDims + i).c_str()),
                       "a static size to price (an unbounded dynamic dimension, '?' in HLO text, has none)", "-1");
    }
    const int64_t size = whole_feature(graph, node, kShapeDims + i, 0, int64_t{1} << 40);
    if (size == 0) break;
    dims.push_back(size);
  }
  return dims;
}

// The written layout: the first `rank` minor_to_major entries when they are a permutation, else
// row-major (the encoder writes no layout for some nodes).
std::vector<int> layout_of(const TpuGraph& graph, int32_t node, size_t rank) {
  std::vector<int> layout;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    const float value = graph.node_feature(node, kMinorToMajor + static_cast<int>(i));
    if (!(value >= 0 && value < static_cast<float>(rank)) || value != std::floor(value)) return row_major_layout(rank);
    const int dim = static_cast<int>(value);
    if (seen[static_cast<size_t>(dim)]) return row_major_layout(rank);
    seen[static_cast<size_t>(dim)] = true;
    layout.push_back(dim);
  }
  return layout;
}

bool is_vector_elementwise(int opcode_value) {
  static const std::vector<int> ops = [] {
    std::vector<int> ids;
    for (const char* name : {"add",
                             "multiply",
                             "subtract",
                             "divide",
                             "maximum",
                             "minimum",
                             "exponential",
                             "tanh",
                             "logistic",
                             "rsqrt",
                             "sqrt",
                             "compare",
                             "select",
                             "negate",
                             "convert",
                             "abs",
                             "log",
                             "power",
                             "and",
                             "or",
                             "not",
                             "clamp",
                             "exponential-minus-one",
                             "log-plus-one",
                             "sign",
                             "floor",
                             "ceil",
                             "round-nearest-afz",
                             "remainder",
                             "atan2",
                             "xor",
                             "cosine",
                             "sine",
                             "is-finite",
                             "shift-left",
                             "shift-right-logical",
                             "shift-right-arithmetic"}) {
      const int id = opcode_id(name);
      if (id > 0) ids.push_back(id);
    }
    return ids;
  }();
  return std::find(ops.begin(), ops.end(), opcode_value) != ops.end();
}

// Convolution: operands 0 (input) and 1 (kernel) by the dimension numbers.
void rebuild_convolution(const TpuGraph& graph, int32_t id, SynthNode& n, const std::vector<SynthNode>& nodes, RebuiltProgram& program) {
  ++program.convolutions;
  const int input_feature = static_cast<int>(whole_feature(graph, id, kInputFeature, 0, 5));
  const int kernel_input = static_cast<int>(whole_feature(graph, id, kKernelInputFeature, 0, 5));
  const int kernel_output = static_cast<int>(whole_feature(graph, id, kKernelOutputFeature, 0, 5));
  const int output_feature = static_cast<int>(whole_feature(graph, id, kOutputFeature, 0, 5));
  const int64_t groups = std::max<int64_t>(1, whole_feature(graph, id, kFeatureGroups, 0, int64_t{1} << 40));
  auto fits = [&](int32_t input, int32_t kernel) {
    const std::vector<int64_t>& in = nodes[static_cast<size_t>(input)].dims;
    const std::vector<int64_t>& k = nodes[static_cast<size_t>(kernel)].dims;
    return static_cast<size_t>(input_feature) < in.size() && static_cast<size_t>(kernel_input) < k.size() &&
           static_cast<size_t>(kernel_output) < k.size() && static_cast<size_t>(output_feature) < n.dims.size() &&
           in[static_cast<size_t>(input_feature)] % groups == 0 &&
           in[static_cast<size_t>(input_feature)] / groups == k[static_cast<size_t>(kernel_input)] &&
           k[static_cast<size_t>(kernel_output)] == n.dims[static_cast<size_t>(output_feature)];
  };
  const bool as_given = fits(n.operands[0], n.operands[1]), swapped = fits(n.operands[1], n.operands[0]);
  if (as_given == swapped) ++program.convolutions_order_ambiguous;
  if (swapped && !as_given) std::swap(n.operands[0], n.operands[1]);
  const std::vector<int64_t>& kernel = nodes[static_cast<size_t>(n.operands[1])].dims;
  n.input_contracting_dim = input_feature;
  n.kernel_contracting_dim = kernel_input;
  n.kernel_output_dim = kernel_output;
  n.output_feature_dim = output_feature;
  const double per_output = static_cast<size_t>(kernel_output) < kernel.size()
                                ? element_count(kernel) / static_cast<double>(kernel[static_cast<size_t>(kernel_output)])
                                : element_count(kernel);
  n.flops = 2.0 * element_count(n.dims) * per_output;
}

// How a dot contracts: its batch dim count (leading in both operands) and, per operand, a bit per
// dim that is contracted. Contracted dims pair up in order.
// How a dot contracts: per operand, a bit per batch dim and per contracted dim. Batch dims pair up
// in order (and lead the output), so do contracted dims.
struct DotDims {
  unsigned lhs_batch = 0, rhs_batch = 0;
  unsigned lhs_contracted = 0, rhs_contracted = 0;
};

std::vector<int64_t> dims_where(const std::vector<int64_t>& dims, unsigned mask) {
  std::vector<int64_t> picked;
  for (size_t d = 0; d < dims.size(); ++d)
    if ((mask >> d) & 1u) picked.push_back(dims[d]);
  return picked;
}

unsigned all_bits(size_t rank) { return (1u << rank) - 1; }

// Whether `dims` explain the output: [batch dims, lhs free dims, rhs free dims] in order, and the
// contracted dims of both sides of equal sizes, pair by pair.
bool dot_explains(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs, const std::vector<int64_t>& out, const DotDims& dims) {
  if (dims.lhs_contracted == 0 || (dims.lhs_batch & dims.lhs_contracted) != 0 || (dims.rhs_batch & dims.rhs_contracted) != 0) return false;
  if ((dims.lhs_batch | dims.lhs_contracted) > all_bits(lhs.size()) || (dims.rhs_batch | dims.rhs_contracted) > all_bits(rhs.size()))
    return false;
  std::vector<int64_t> expected = dims_where(lhs, dims.lhs_batch);
  if (expected != dims_where(rhs, dims.rhs_batch)) return false;
  if (dims_where(lhs, dims.lhs_contracted) != dims_where(rhs, dims.rhs_contracted)) return false;
  for (int64_t d : dims_where(lhs, all_bits(lhs.size()) & ~(dims.lhs_batch | dims.lhs_contracted))) expected.push_back(d);
  for (int64_t d : dims_where(rhs, all_bits(rhs.size()) & ~(dims.rhs_batch | dims.rhs_contracted))) expected.push_back(d);
  return expected == out;
}

// The masks of `bits` dims of a rank, avoiding `taken`, in preference order: (major) the
// major-most first, as batch dims usually lead and the canonical [K, N] contracts its first
// free dim, or (minor) the minor-most first, as the canonical [M, K] contracts its last.
std::vector<unsigned> masks_of(size_t rank, int bits, unsigned taken, bool minor_first) {
  std::vector<unsigned> masks;
  for (unsigned mask = 0; mask <= all_bits(rank); ++mask)
    if (__builtin_popcount(mask) == bits && (mask & taken) == 0) masks.push_back(mask);
  std::sort(masks.begin(), masks.end(), [minor_first](unsigned a, unsigned b) {
    // Compare the dims in order from the preferred end.
    for (int d = 0; d < 32; ++d) {
      const unsigned bit = minor_first ? 1u << (31 - d) : 1u << d;
      if ((a & bit) != (b & bit)) return (a & bit) != 0;
    }
    return false;
  });
  return masks;
}

// The first explanation in preference order: fewer batch dims, fewer contracted dims, then the
// masks' orders. Batch dims may sit anywhere in an operand (an attention score [32,128,16,64] x
// [32,128,16,64] -> [32,16,128,128] batches dims 0 and 2).
bool find_dot_dims(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs, const std::vector<int64_t>& out, DotDims& found) {
  if (lhs.size() > 6 || rhs.size() > 6) return false;
  const int lr = static_cast<int>(lhs.size()), rr = static_cast<int>(rhs.size()), outr = static_cast<int>(out.size());
  for (int batch = 0; batch < std::min(lr, rr); ++batch) {
    // out rank = batch + (lhs rank - batch - k) + (rhs rank - batch - k)
    const int twice_k = lr + rr - batch - outr;
    if (twice_k < 2 || twice_k % 2 != 0) continue;
    const int k = twice_k / 2;
    for (unsigned lhs_batch : masks_of(lhs.size(), batch, 0, false)) {
      if (dims_where(lhs, lhs_batch) != std::vector<int64_t>(out.begin(), out.begin() + batch)) continue;
      for (unsigned rhs_batch : masks_of(rhs.size(), batch, 0, false)) {
        if (dims_where(rhs, rhs_batch) != dims_where(lhs, lhs_batch)) continue;
        for (unsigned lhs_mask : masks_of(lhs.size(), k, lhs_batch, true)) {
          for (unsigned rhs_mask : masks_of(rhs.size(), k, rhs_batch, false)) {
            const DotDims candidate{lhs_batch, rhs_batch, lhs_mask, rhs_mask};
            if (dot_explains(lhs, rhs, out, candidate)) {
              found = candidate;
              return true;
            }
          }
        }
      }
    }
  }
  return false;
}

int highest_bit(unsigned mask) { return mask == 0 ? -1 : 31 - __builtin_clz(mask); }

void rebuild_dot(const TpuGraph& graph, int32_t id, SynthNode& n, const std::vector<SynthNode>& nodes, RebuiltProgram& program) {
  ++program.dots;
  auto dims = [&](int32_t node) -> const std::vector<int64_t>& { return nodes[static_cast<size_t>(node)].dims; };
  DotDims how;
  bool found = false;
  const float written_lhs = graph.node_feature(id, kDimensions), written_rhs = graph.node_feature(id, kDimensions + 1);
  // Both 0 is what the real files hold (no dot dimension numbers): not a written pair.
  const bool written = written_lhs != 0 || written_rhs != 0;
  if (written && written_lhs >= 0 && written_rhs >= 0 && written_lhs < 6 && written_rhs < 6) {
    const std::vector<int64_t>& lhs = dims(n.operands[0]);
    const size_t batch = lhs.size() >= 2 && lhs.size() + dims(n.operands[1]).size() >= 2 + n.dims.size()
                             ? lhs.size() + dims(n.operands[1]).size() - 2 - n.dims.size()
                             : 0;  // the generator's dots batch their leading dims
    const DotDims candidate{all_bits(batch), all_bits(batch), 1u << static_cast<unsigned>(written_lhs),
                            1u << static_cast<unsigned>(written_rhs)};
    if (dot_explains(lhs, dims(n.operands[1]), n.dims, candidate)) {
      how = candidate;
      found = true;
      ++program.dots_from_dimensions;
    }
  }
  if (!found) {
    found = find_dot_dims(dims(n.operands[0]), dims(n.operands[1]), n.dims, how);
    if (!found) {
      std::swap(n.operands[0], n.operands[1]);
      found = find_dot_dims(dims(n.operands[0]), dims(n.operands[1]), n.dims, how);
      if (!found) std::swap(n.operands[0], n.operands[1]);  // back to the file's order
    }
    if (found) ++program.dots_from_shapes;
  }
  const std::vector<int64_t>& lhs = dims(n.operands[0]);
  const std::vector<int64_t>& rhs = dims(n.operands[1]);
  if (!found) {
    ++program.dots_unresolved;
    how.lhs_contracted = lhs.empty() ? 0 : 1u << (lhs.size() - 1);
    how.rhs_contracted = rhs.size() >= 2 ? 1u << (rhs.size() - 2) : 1u;
  }
  // The layout rules know one contracted dim per side: lhs's minor-most, and its rhs partner.
  const std::vector<int64_t> contracted = dims_where(lhs, how.lhs_contracted);
  n.input_contracting_dim = highest_bit(how.lhs_contracted);
  n.kernel_contracting_dim = highest_bit(how.rhs_contracted);
  // XLA orders the output [batch, lhs free, rhs free]: the rhs's last free dim is the output's last.
  int rhs_last_free = -1;
  for (size_t d = 0; d < rhs.size(); ++d)
    if ((((how.rhs_contracted | how.rhs_batch) >> d) & 1u) == 0) rhs_last_free = static_cast<int>(d);
  n.kernel_output_dim = rhs_last_free;
  n.output_feature_dim = n.dims.empty() ? -1 : static_cast<int>(n.dims.size()) - 1;
  double contracted_size = 1;
  for (int64_t d : contracted) contracted_size *= static_cast<double>(d);
  n.flops = 2.0 * element_count(n.dims) * contracted_size;
}

}  // namespace

RebuiltProgram rebuild_program(const TpuGraph& graph) {
  RebuiltProgram program;
  const size_t count = static_cast<size_t>(graph.node_count);
  program.nodes.resize(count);
  for (const Edge& edge : graph.edges) {
    if (edge.producer >= edge.consumer) {
      throw InputError(graph.source, "edge_index", "every edge [u, v] with u > v (producers first), as the simulator prices in order",
                       "[" + std::to_string(edge.consumer) + ", " + std::to_string(edge.producer) + "]");
    }
    program.nodes[static_cast<size_t>(edge.consumer)].operands.push_back(edge.producer);
  }
  const int reduce = opcode_id("reduce"), reduce_window = opcode_id("reduce-window");
  for (size_t i = 0; i < count; ++i) {
    const int32_t id = static_cast<int32_t>(i);
    SynthNode& n = program.nodes[i];
    n.opcode = graph.node_opcodes[i];
    n.type = element_type_of(graph, id);
    n.dims = dims_of(graph, id);
    n.layout = layout_of(graph, id, n.dims.size());
    std::copy(graph.node_features.begin() + static_cast<std::ptrdiff_t>(i * kNodeFeatureCount),
              graph.node_features.begin() + static_cast<std::ptrdiff_t>((i + 1) * kNodeFeatureCount), n.features.begin());
    const bool mxu_kind = n.opcode == opcode::kConvolution || n.opcode == opcode::kDot;
    if (mxu_kind && (n.operands.size() < 2 || n.operands[0] == n.operands[1])) {
      ++program.mxu_ops_missing_operands;
      n.flops = element_count(n.dims);
    } else if (n.opcode == opcode::kConvolution) {
      n.mxu = true;
      rebuild_convolution(graph, id, n, program.nodes, program);
    } else if (n.opcode == opcode::kDot) {
      n.mxu = true;
      rebuild_dot(graph, id, n, program.nodes, program);
    } else if (is_vector_elementwise(n.opcode) || n.opcode == opcode::kFusion) {
      n.flops = element_count(n.dims);
    } else if (n.opcode == reduce && !n.operands.empty()) {
      n.flops = element_count(program.nodes[static_cast<size_t>(n.operands[0])].dims);
    } else if (n.opcode == reduce_window) {
      double window = 1;
      for (size_t d = 0; d < n.dims.size(); ++d) window *= std::max(1.0f, graph.node_feature(id, kWindowSize + static_cast<int>(d)));
      n.flops = element_count(n.dims) * window;
    }
  }
  program.configurable = graph.configurable_nodes;
  return program;
}

namespace {

// The kernel's output dims major to minor by the root's layout (the simulator pads the last two as
// the 8 x 128 tiling's sublanes and lanes), as logical dim indices.
std::vector<size_t> physical_order(const RebuiltProgram& program) {
  const SynthNode& root = kernel_root(program.nodes);
  return std::vector<size_t>(root.layout.rbegin(), root.layout.rend());
}

}  // namespace

TileKernel rebuild_tile_kernel(const TpuGraph& graph) {
  const RebuiltProgram program = rebuild_program(graph);
  if (program.nodes.empty()) throw InputError(graph.source, "node_feat", "a kernel with at least one node", "0 nodes");
  TileKernel kernel = tile_kernel_of(program.nodes);
  std::vector<int64_t> physical;
  for (size_t d : physical_order(program)) physical.push_back(kernel.output_dims[d]);
  kernel.output_dims = physical;
  return kernel;
}

std::vector<std::vector<int64_t>> tiles_of_configs(const TpuGraph& graph) {
  const RebuiltProgram program = rebuild_program(graph);
  if (program.nodes.empty()) throw InputError(graph.source, "node_feat", "a kernel with at least one node", "0 nodes");
  const SynthNode* root = &kernel_root(program.nodes);
  const std::vector<size_t> order = physical_order(program);
  std::vector<std::vector<int64_t>> tiles;
  for (int32_t config = 0; config < graph.config_count; ++config) {
    const float* row = graph.tile_config_features.data() + static_cast<size_t>(config) * kTileConfigFeatureCount;
    std::vector<int64_t> tile;
    for (size_t d : order) {
      const int64_t dim = root->dims[d];
      const float kernel_bound = d < 6 ? row[d] : 0, count = d < 6 ? row[kOutputBoundsColumn + d] : 0;
      if (kernel_bound >= 1) tile.push_back(static_cast<int64_t>(kernel_bound));
      else if (count >= 1) tile.push_back((dim + static_cast<int64_t>(count) - 1) / static_cast<int64_t>(count));
      else tile.push_back(dim);
    }
    tiles.push_back(std::move(tile));
  }
  return tiles;
}

}  // namespace graphcost
