// The cost simulator behind `graphcost gen`: runtimes with a physical motivation (docs/simulator.md).
//
// Layout programs: every op costs max(flops / compute rate, bytes / HBM bandwidth) + launch
// overhead (a roofline). Bytes count the 8 x 128 tiling of each tensor's two minor-most dimensions
// (by its layout), so a small minor dimension wastes lanes. MXU ops (convolution, dot) lose
// efficiency when their contracting dimension is not minor in the operands or their output
// feature dimension is not minor in the result. A copy (transpose) is inserted wherever a
// consumer needs an operand in another layout than its producer wrote: the best layout for one
// op can cost copies elsewhere, so the best per-op choices are not the best program.
//
// Tile kernels: the output is cut into tiles; each tile costs a roofline on its padded size plus a
// per-tile overhead, and a working set beyond on-chip memory (VMEM) spills.
//
// Both return noiseless seconds; `measure` adds multiplicative log-normal noise.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "simulator/hlo_builder.h"

namespace graphcost {

struct HardwareModel {
  double mxu_flops_bf16 = 275e12;  // matrix-unit peak, flop/s (TPU v4 class)
  double mxu_f32_slowdown = 4;     // f32 matmuls run at a quarter of the bf16 rate
  double vector_flops = 8e12;      // elementwise (VPU) rate, flop/s
  double hbm_bytes_per_second = 1.2e12;
  double op_overhead_seconds = 1.5e-6;
  double copy_slowdown = 1.6;     // a transposing copy moves bytes slower than streaming
  double copy_share = 1.0;        // share of each layout-mismatch copy's cost paid (0: the compiler repairs all)
  int lanes = 128, sublanes = 8;  // tiling of the two minor-most dimensions
  // MXU efficiency when the input's contracting dim is not minor, when the kernel has neither its
  // output dim minor nor its contracting dim second-minor, when the output's feature dim is not minor.
  double mxu_input_efficiency = 0.55, mxu_kernel_efficiency = 0.8, mxu_output_efficiency = 0.75;
  double tile_overhead_seconds = 0.35e-6;
  double vmem_bytes = 16.0 * (1 << 20);
  double spill_slowdown = 3.0;
  // The matrix unit as measured TPU timings show it (simulator/gemm_model.h; the tpu-v5e and tpu-v6e
  // profiles): 0 keeps the nominal model above. With mxu_dim > 0, an MXU op pads its contracting
  // and output-feature dims to mxu_dim and its rows to 8, runs at mxu_efficiency of the peak
  // (int8 at mxu_flops_int8), moves its bytes at hbm_efficiency of the bandwidth, and hides all but
  // overlap_share of the smaller of compute and memory time under the larger.
  int mxu_dim = 0;
  double mxu_flops_int8 = 0;  // 0: twice mxu_flops_bf16
  double mxu_efficiency = 1, hbm_efficiency = 1, overlap_share = 0;
  // A GEMM operand that fits in resident_share of VMEM is read resident_read_speedup times faster
  // (it stays in VMEM across repeated calls); launch_seconds is a whole program's floor (a jitted
  // call), which a single GEMM pays and an op inside a program does not.
  double resident_read_speedup = 1, resident_share = 0.9, launch_seconds = 0;
};

// A layout block (6 values of node_config_feat: a prefix of minor_to_major, -1 padded) resolved to
// a full permutation: the given prefix, then the remaining dims in `fallback`'s order. All -1 means
// the compiler's default: `fallback` itself.
std::vector<int> resolve_layout(const int8_t* block, const std::vector<int>& fallback);

// A layout as the simulator prices it: minor_to_major dims, without owning them (a std::vector<int>
// converts to one).
struct LayoutSpan {
  const int* dims = nullptr;
  size_t rank = 0;
  LayoutSpan() = default;
  LayoutSpan(const int* d, size_t r) : dims(d), rank(r) {}
  LayoutSpan(const std::vector<int>& layout) : dims(layout.data()), rank(layout.size()) {}  // NOLINT: implicit on purpose
  bool empty() const { return rank == 0; }
  size_t size() const { return rank; }
  int operator[](size_t i) const { return dims[i]; }
};

class IncrementalLayoutRuntime;

// The nodes `graphcost gen` makes configurable: convolutions, dots and same-rank reshapes of rank
// 2 or more, in id order.
std::vector<int32_t> configurable_candidates(const HloBuilder& program);

// A sum of `terms` doubles in one fixed pairwise order: a perfect binary tree over the terms
// (zeros past the last), each inner value its left child plus its right. The total is the same
// double however and in whatever order the terms were set, so the full simulation and the
// incremental one agree bit for bit, and changing k of n terms costs about k log2 n additions
// instead of n.
class PairwiseSum {
 public:
  explicit PairwiseSum(size_t terms = 0);
  void set(size_t term, double value);  // the total catches up in total()
  double total();

 private:
  size_t terms_ = 0, leaves_ = 1, depth_ = 0;
  std::vector<double> tree_;  // tree_[1] the root, tree_[leaves_ + i] term i
  std::vector<size_t> changed_;
};

class LayoutProgram {
 public:
  LayoutProgram(const HloBuilder& program, std::vector<int32_t> configurable_nodes, HardwareModel hardware = {});
  // Nodes in topological order (operands first), e.g. a dataset file's (simulator/program_from_graph.h).
  LayoutProgram(std::vector<SynthNode> nodes, std::vector<int32_t> configurable_nodes, HardwareModel hardware = {});

  const std::vector<int32_t>& configurable_nodes() const { return configurable_; }
  int rank_of(int32_t node) const { return static_cast<int>(nodes_[static_cast<size_t>(node)].dims.size()); }
  bool has_kernel(int32_t node) const { return nodes_[static_cast<size_t>(node)].mxu; }

  // Noiseless runtime (s) of a config: configurable_nodes().size() x 18 values.
  double runtime(const std::vector<int8_t>& config) const;
  // The config that lets every configurable op pick the layouts cheapest for itself alone,
  // ignoring the copies its choice forces on neighbours.
  std::vector<int8_t> locally_best_config() const;
  // All -1: the compiler's default layouts.
  std::vector<int8_t> default_config() const;
  // Total bytes of copies inserted under `config` (a diagnostic for tests and docs).
  double copy_bytes(const std::vector<int8_t>& config) const;
  // Makes dims `minor`, `second` the two minor-most of the output of configurable node `slot` and
  // of the input of every configurable op that reads that output through elementwise ops: a change
  // that keeps producer and consumers agreeing, as a layout-assignment pass would make it.
  void coordinated_change(std::vector<int8_t>& config, size_t slot, int minor, int second) const;

 private:
  struct Evaluation {
    double seconds = 0, copy_bytes = 0;
  };
  friend class IncrementalLayoutRuntime;

  // The nodes `graphcost gen` makes configurable: convolutions, dots and same-rank reshapes of rank
  // 2 or more, in id order.
  std::vector<int32_t> configurable_candidates(const HloBuilder& program);
  Evaluation evaluate(const std::vector<int8_t>& config) const;
  double padded_bytes(int32_t node, LayoutSpan layout) const;
  double op_seconds(int32_t node, LayoutSpan out_layout, const LayoutSpan* operand_layouts) const;
  // An MXU op's flops with its dims padded to the matrix unit (HardwareModel::mxu_dim; as is when 0).
  double mxu_padded_flops(const SynthNode& n) const;
  double copy_seconds(double moved_bytes) const;  // a layout-mismatch copy of read + written bytes
  // Whether a node writes its operand 0's layout (elementwise, concatenate, reduce-window of the
  // same rank), and whether it reads its operands in its own layout (elementwise, concatenate).
  bool propagates_layout(const SynthNode& n) const;
  bool reads_in_own_layout(int opcode) const;

  std::vector<SynthNode> nodes_;
  std::vector<int32_t> configurable_;
  std::vector<int32_t> slot_of_;              // node -> index in configurable_, or -1
  std::vector<std::vector<size_t>> readers_;  // slot -> configurable slots whose input it feeds
  HardwareModel hardware_;
};

// The noiseless runtime of one layout config after another, recomputing only what changed since the
// previous config: the configurable nodes whose 18 values changed, the nodes whose written layout
// follows from theirs, and every reader of a layout that changed. Every node's terms (its copies,
// then its op) are LayoutProgram::runtime's, from the same functions, summed in the same pairwise
// order (PairwiseSum): the result is the same double, bit for bit (tests/test_cost_simulator.cpp).
// A config that changes few slots queues them and their readers; one that changes most (random
// configs) makes one pass over the nodes. On a 4,535-node nlp program it labels random configs
// 3.3x and search steps 140x faster than runtime() (bench/gen_incremental.sh). Not thread-safe:
// one per thread.
class IncrementalLayoutRuntime {
 public:
  explicit IncrementalLayoutRuntime(const LayoutProgram& program);
  double runtime(const std::vector<int8_t>& config);
  size_t recomputed_nodes() const { return recomputed_; }  // by the last call

 private:
  void recompute(size_t id, const int8_t* block);

  const LayoutProgram& program_;
  std::vector<int8_t> config_;  // the previous config; empty before the first
  std::vector<std::array<int, 6>> out_;
  std::vector<uint8_t> out_rank_, out_changed_;
  std::vector<size_t> term_start_;    // node -> its first term: one per operand (a copy, or none), then its op
  PairwiseSum terms_;                 // every term; a copy that is not made counts 0
  std::vector<size_t> reader_start_;  // node -> its readers in readers_ (CSR, by node id)
  std::vector<int32_t> readers_;
  std::vector<int32_t> pending_;  // a min-heap of node ids still to recompute in this call
  std::vector<uint8_t> queued_;
  std::vector<int32_t> done_;                     // the nodes recomputed in this call
  std::vector<std::array<int, 6>> operand_dims_;  // scratch: the layouts a node reads its operands in
  std::vector<LayoutSpan> operand_spans_;
  size_t recomputed_ = 0;
};

struct TileKernel {
  std::vector<int64_t> output_dims;  // the fused kernel's output (up to 4 dims tiled)
  double flops_per_element = 1;      // work per output element
  double bytes_per_element = 8;      // operand + output bytes moved per output element
  bool mxu = false;
};

TileKernel tile_kernel_of(const HloBuilder& kernel);
TileKernel tile_kernel_of(const std::vector<SynthNode>& nodes);
// A kernel's output node: the last one marked root (node_feat column 0), else the last node.
const SynthNode& kernel_root(const std::vector<SynthNode>& nodes);
// Noiseless runtime (s) of `kernel` cut into tiles of `tile` sizes (one per output dim).
double tile_runtime(const TileKernel& kernel, const std::vector<int64_t>& tile, const HardwareModel& hardware = {});

// One measurement: `seconds` x exp(N(0, sigma)).
double measure(double seconds, double sigma, std::mt19937_64& random);

}  // namespace graphcost
