#include "simulator/cost_simulator.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <functional>
#include <limits>

#include "common/internal_error.h"
#include "data/opcodes.h"

namespace graphcost {
namespace {

constexpr int kBlock = 6, kOutputBlock = 0, kInputBlock = 6, kKernelBlock = 12;

int64_t round_up(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

bool is_elementwise(int opcode_value) {
  static const int ops[] = {opcode_id("add"),      opcode::kMultiply,    opcode_id("subtract"),    opcode_id("divide"),
                            opcode_id("maximum"),  opcode_id("minimum"), opcode_id("exponential"), opcode_id("tanh"),
                            opcode_id("logistic"), opcode_id("rsqrt"),   opcode_id("compare"),     opcode_id("select"),
                            opcode_id("negate"),   opcode_id("convert")};
  return std::find(std::begin(ops), std::end(ops), opcode_value) != std::end(ops);
}

// Normal deviate from two uniforms (Box-Muller): std::normal_distribution is implementation-defined,
// and generated files must be identical on every platform.
double standard_normal(std::mt19937_64& random) {
  const double u1 = (static_cast<double>(random() >> 11) + 0.5) * 0x1.0p-53;
  const double u2 = static_cast<double>(random() >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

// The opcodes the simulator treats specially, looked up once.
struct SpecialOpcodes {
  int constant = opcode_id("constant"), concatenate = opcode_id("concatenate"), reduce_window = opcode_id("reduce-window");
};
const SpecialOpcodes& special() {
  static const SpecialOpcodes ids;
  return ids;
}

// resolve_layout into a fixed array: the same dims in the same order, without allocating.
size_t resolve_into(const int8_t* block, LayoutSpan fallback, int* out) {
  bool used[8] = {};
  size_t rank = 0;
  for (int i = 0; i < kBlock; ++i) {
    const int dim = block[i];
    if (dim < 0 || dim >= static_cast<int>(fallback.size()) || used[dim]) continue;
    out[rank++] = dim;
    used[dim] = true;
  }
  for (size_t k = 0; k < fallback.size(); ++k) {
    if (!used[fallback[k]]) out[rank++] = fallback[k];
  }
  return rank;
}

bool same_layout(LayoutSpan a, LayoutSpan b) { return a.rank == b.rank && std::equal(a.dims, a.dims + a.rank, b.dims); }

}  // namespace

std::vector<int32_t> configurable_candidates(const HloBuilder& program) {
  std::vector<int32_t> configurable;
  for (int id = 0; id < program.node_count(); ++id) {
    const SynthNode& n = program.node(id);
    const bool kind = n.opcode == opcode::kConvolution || n.opcode == opcode::kDot ||
                      (n.opcode == opcode::kReshape && n.dims.size() >= 2 && program.node(n.operands[0]).dims.size() == n.dims.size());
    if (kind && n.dims.size() >= 2) configurable.push_back(id);
  }
  return configurable;
}

std::vector<int> resolve_layout(const int8_t* block, const std::vector<int>& fallback) {
  std::vector<int> layout;
  std::vector<bool> used(fallback.size(), false);
  for (int i = 0; i < kBlock; ++i) {
    const int dim = block[i];
    if (dim < 0 || dim >= static_cast<int>(fallback.size()) || used[static_cast<size_t>(dim)]) continue;
    layout.push_back(dim);
    used[static_cast<size_t>(dim)] = true;
  }
  for (int dim : fallback) {
    if (!used[static_cast<size_t>(dim)]) layout.push_back(dim);
  }
  return layout;
}

LayoutProgram::LayoutProgram(const HloBuilder& program, std::vector<int32_t> configurable_nodes, HardwareModel hardware)
    : LayoutProgram(program.nodes(), std::move(configurable_nodes), hardware) {}

LayoutProgram::LayoutProgram(std::vector<SynthNode> nodes, std::vector<int32_t> configurable_nodes, HardwareModel hardware)
    : nodes_(std::move(nodes)), configurable_(std::move(configurable_nodes)), hardware_(hardware) {
  for (size_t id = 0; id < nodes_.size(); ++id) {
    for (int32_t operand : nodes_[id].operands) {
      check_invariant(operand >= 0 && static_cast<size_t>(operand) < id, "LayoutProgram: operands must precede their readers");
    }
  }
  slot_of_.assign(nodes_.size(), -1);
  for (size_t slot = 0; slot < configurable_.size(); ++slot)
    slot_of_[static_cast<size_t>(configurable_[slot])] = static_cast<int32_t>(slot);
  // Which configurable op produced each configurable op's input (through layout-propagating ops).
  readers_.assign(configurable_.size(), {});
  for (size_t slot = 0; slot < configurable_.size(); ++slot) {
    int32_t walk = nodes_[static_cast<size_t>(configurable_[slot])].operands.empty()
                       ? -1
                       : nodes_[static_cast<size_t>(configurable_[slot])].operands[0];
    while (walk >= 0 && slot_of_[static_cast<size_t>(walk)] < 0) {
      const SynthNode& n = nodes_[static_cast<size_t>(walk)];
      walk = propagates_layout(n) ? n.operands[0] : -1;
    }
    if (walk >= 0) readers_[static_cast<size_t>(slot_of_[static_cast<size_t>(walk)])].push_back(slot);
  }
}

bool LayoutProgram::propagates_layout(const SynthNode& n) const {
  return (is_elementwise(n.opcode) || n.opcode == special().concatenate || n.opcode == special().reduce_window) && !n.operands.empty() &&
         nodes_[static_cast<size_t>(n.operands[0])].dims.size() == n.dims.size();
}

bool LayoutProgram::reads_in_own_layout(int opcode) const { return is_elementwise(opcode) || opcode == special().concatenate; }

void LayoutProgram::coordinated_change(std::vector<int8_t>& config, size_t slot, int minor, int second) const {
  auto set = [&](int8_t* block) {
    std::fill(block, block + kBlock, static_cast<int8_t>(-1));
    block[0] = static_cast<int8_t>(minor);
    if (second != minor) block[1] = static_cast<int8_t>(second);
  };
  set(config.data() + slot * 18 + kOutputBlock);
  for (size_t reader : readers_[slot]) set(config.data() + reader * 18 + kInputBlock);
}

double LayoutProgram::padded_bytes(int32_t node, LayoutSpan layout) const {
  const SynthNode& n = nodes_[static_cast<size_t>(node)];
  const double element = element_bytes(n.type);
  if (n.dims.empty()) return element;
  double count = 1;
  for (size_t d = 0; d < n.dims.size(); ++d) {
    int64_t size = n.dims[d];
    if (!layout.empty() && static_cast<int>(d) == layout[0]) size = round_up(size, hardware_.lanes);
    else if (layout.size() > 1 && static_cast<int>(d) == layout[1]) size = round_up(size, hardware_.sublanes);
    count *= static_cast<double>(size);
  }
  return count * element;
}

double LayoutProgram::copy_seconds(double moved_bytes) const {
  return hardware_.copy_share * (hardware_.copy_slowdown * moved_bytes / hardware_.hbm_bytes_per_second + hardware_.op_overhead_seconds);
}

double LayoutProgram::op_seconds(int32_t node, LayoutSpan out_layout, const LayoutSpan* operand_layouts) const {
  const SynthNode& n = nodes_[static_cast<size_t>(node)];
  if (n.opcode == opcode::kParameter || n.opcode == special().constant || n.type == ElementType::Tuple ||
      n.opcode == opcode::kGetTupleElement) {
    return 0;
  }
  double bytes = padded_bytes(node, out_layout);
  for (size_t i = 0; i < n.operands.size(); ++i) bytes += padded_bytes(n.operands[i], operand_layouts[i]);
  double compute = 0;
  if (n.mxu) {
    double efficiency = 1;
    if (operand_layouts[0].empty() || operand_layouts[0][0] != n.input_contracting_dim) efficiency *= hardware_.mxu_input_efficiency;
    const LayoutSpan kernel = operand_layouts[1];
    const int kernel_rank = static_cast<int>(kernel.size());
    const int kernel_output = n.kernel_output_dim >= 0 ? n.kernel_output_dim : kernel_rank - 1;
    if (kernel_rank < 2 || (kernel[0] != kernel_output && kernel[1] != n.kernel_contracting_dim))
      efficiency *= hardware_.mxu_kernel_efficiency;
    if (out_layout.empty() || out_layout[0] != n.output_feature_dim) efficiency *= hardware_.mxu_output_efficiency;
    const double rate = hardware_.mxu_flops_bf16 / (n.type == ElementType::F32 ? hardware_.mxu_f32_slowdown : 1.0);
    compute = mxu_padded_flops(n) / (rate * efficiency * hardware_.mxu_efficiency);
  } else {
    compute = n.flops / hardware_.vector_flops;
  }
  if (hardware_.mxu_dim > 0) {  // the measured TPU model (simulator/gemm_model.h): partial overlap
    const double memory = bytes / (hardware_.hbm_bytes_per_second * hardware_.hbm_efficiency);
    return std::max(compute, memory) + hardware_.overlap_share * std::min(compute, memory) + hardware_.op_overhead_seconds;
  }
  return std::max(compute, bytes / hardware_.hbm_bytes_per_second) + hardware_.op_overhead_seconds;
}

double LayoutProgram::mxu_padded_flops(const SynthNode& n) const {
  if (hardware_.mxu_dim <= 0 || n.dims.empty()) return n.flops;
  // As a GEMM: N the output features, M the rest of the output, K what flops = 2 M N K leaves.
  double elements = 1;
  for (const int64_t d : n.dims) elements *= static_cast<double>(d);
  if (elements <= 0) return n.flops;
  const size_t feature = n.output_feature_dim >= 0 ? static_cast<size_t>(n.output_feature_dim) : n.dims.size() - 1;
  const double features = static_cast<double>(std::max<int64_t>(1, n.dims[feature]));
  const double rows = elements / features, contracted = n.flops / (2 * elements);
  const double mxu = hardware_.mxu_dim;
  const auto up = [](double value, double multiple) { return std::ceil(value / multiple) * multiple; };
  return 2 * up(rows, 8) * up(contracted, mxu) * up(features, mxu);
}

PairwiseSum::PairwiseSum(size_t terms) : terms_(terms) {
  while (leaves_ < terms) leaves_ *= 2, ++depth_;
  tree_.assign(2 * leaves_, 0.0);
}

void PairwiseSum::set(size_t term, double value) {
  assert(term < terms_);  // a padding leaf must stay 0
  tree_[leaves_ + term] = value;
  changed_.push_back(term);
}

double PairwiseSum::total() {
  if (changed_.size() * depth_ >= leaves_) {
    for (size_t k = leaves_ - 1; k >= 1; --k) tree_[k] = tree_[2 * k] + tree_[2 * k + 1];
  } else {
    // Each changed term's path to the root, recomputed from the children: a node's last recompute
    // comes after every changed term below it, so each ends as the full rebuild makes it.
    for (size_t term : changed_) {
      for (size_t k = (leaves_ + term) / 2; k >= 1; k /= 2) tree_[k] = tree_[2 * k] + tree_[2 * k + 1];
    }
  }
  changed_.clear();
  return tree_[1];
}

LayoutProgram::Evaluation LayoutProgram::evaluate(const std::vector<int8_t>& config) const {
  Evaluation result;
  size_t term_count = 0;
  for (const SynthNode& n : nodes_) term_count += n.operands.size() + 1;
  PairwiseSum terms(term_count);  // the runtime: per node, a term per operand (its copy, or 0), then its op
  size_t term = 0;
  std::vector<std::vector<int>> out_layout(nodes_.size());
  std::vector<std::vector<int>> operand_layouts;
  for (size_t id = 0; id < nodes_.size(); ++id) {
    const SynthNode& n = nodes_[id];
    const int32_t slot = slot_of_[id];
    const int8_t* block = slot >= 0 ? config.data() + static_cast<size_t>(slot) * 18 : nullptr;
    // The layout this op writes: chosen for configurable ops, propagated from operand 0 through
    // elementwise ops and concatenations, the compiler default otherwise.
    if (block != nullptr) {
      out_layout[id] = resolve_layout(block + kOutputBlock, n.layout);
    } else if (propagates_layout(n)) {
      out_layout[id] = out_layout[static_cast<size_t>(n.operands[0])];
    } else {
      out_layout[id] = n.layout;
    }
    // The layout each operand is read in; a mismatch with what its producer wrote costs a copy.
    operand_layouts.assign(n.operands.size(), {});
    for (size_t i = 0; i < n.operands.size(); ++i) {
      const size_t producer = static_cast<size_t>(n.operands[i]);
      const std::vector<int>& written = out_layout[producer];
      std::vector<int> wanted = written;
      if (block != nullptr && i < 2 && !(i == 1 && !n.mxu)) {
        wanted = resolve_layout(block + (i == 0 ? kInputBlock : kKernelBlock), nodes_[producer].layout);
      } else if (reads_in_own_layout(n.opcode) && nodes_[producer].dims.size() == n.dims.size()) {
        wanted = out_layout[id];
      }
      // Broadcasts and constants are materialised in whatever layout their reader wants.
      const int producer_opcode = nodes_[producer].opcode;
      const bool flexible = producer_opcode == opcode::kBroadcast || producer_opcode == special().constant;
      if (wanted != written && nodes_[producer].dims.size() >= 2 && !flexible) {
        const double moved = padded_bytes(n.operands[i], written) + padded_bytes(n.operands[i], wanted);
        result.copy_bytes += moved;
        terms.set(term + i, copy_seconds(moved));
      }
      operand_layouts[i] = std::move(wanted);
    }
    const std::vector<LayoutSpan> spans(operand_layouts.begin(), operand_layouts.end());
    terms.set(term + n.operands.size(), op_seconds(static_cast<int32_t>(id), out_layout[id], spans.data()));
    term += n.operands.size() + 1;
  }
  result.seconds = terms.total();
  return result;
}

IncrementalLayoutRuntime::IncrementalLayoutRuntime(const LayoutProgram& program) : program_(program) {
  const size_t n = program.nodes_.size();
  out_.resize(n);
  out_rank_.assign(n, 0);
  out_changed_.assign(n, 0);
  term_start_.resize(n + 1);
  size_t most_operands = 0;
  for (size_t id = 0; id < n; ++id) {
    const SynthNode& node = program.nodes_[id];
    check_invariant(node.dims.size() <= 6 && node.layout.size() <= 6, "IncrementalLayoutRuntime: a tensor of rank above 6");
    term_start_[id + 1] = term_start_[id] + node.operands.size() + 1;
    most_operands = std::max(most_operands, node.operands.size());
  }
  terms_ = PairwiseSum(term_start_[n]);
  reader_start_.assign(n + 1, 0);
  for (const SynthNode& node : program.nodes_)
    for (int32_t producer : node.operands) ++reader_start_[static_cast<size_t>(producer) + 1];
  for (size_t id = 0; id < n; ++id) reader_start_[id + 1] += reader_start_[id];
  readers_.resize(reader_start_[n]);
  std::vector<size_t> next(reader_start_.begin(), reader_start_.end() - 1);
  for (size_t id = 0; id < n; ++id)
    for (int32_t producer : program.nodes_[id].operands) readers_[next[static_cast<size_t>(producer)]++] = static_cast<int32_t>(id);
  queued_.assign(n, 0);
  operand_dims_.resize(most_operands);
  operand_spans_.resize(most_operands);
}

// Node `id` as LayoutProgram::evaluate prices it, given the layouts its producers wrote (out_).
void IncrementalLayoutRuntime::recompute(size_t id, const int8_t* block) {
  const LayoutProgram& p = program_;
  const SynthNode& n = p.nodes_[id];
  std::array<int, 6> out{};
  size_t out_rank = 0;
  if (block != nullptr) {
    out_rank = resolve_into(block + kOutputBlock, n.layout, out.data());
  } else if (p.propagates_layout(n)) {
    const size_t from = static_cast<size_t>(n.operands[0]);
    out = out_[from];
    out_rank = out_rank_[from];
  } else {
    std::copy(n.layout.begin(), n.layout.end(), out.begin());
    out_rank = n.layout.size();
  }
  out_changed_[id] = !same_layout({out.data(), out_rank}, {out_[id].data(), out_rank_[id]});
  out_[id] = out;
  out_rank_[id] = static_cast<uint8_t>(out_rank);
  const size_t first = term_start_[id];
  for (size_t i = 0; i < n.operands.size(); ++i) {
    const size_t producer = static_cast<size_t>(n.operands[i]);
    const LayoutSpan written(out_[producer].data(), out_rank_[producer]);
    std::array<int, 6>& wanted = operand_dims_[i];
    size_t wanted_rank = written.rank;
    std::copy(written.dims, written.dims + written.rank, wanted.begin());
    if (block != nullptr && i < 2 && !(i == 1 && !n.mxu)) {
      wanted_rank = resolve_into(block + (i == 0 ? kInputBlock : kKernelBlock), p.nodes_[producer].layout, wanted.data());
    } else if (p.reads_in_own_layout(n.opcode) && p.nodes_[producer].dims.size() == n.dims.size()) {
      wanted = out;
      wanted_rank = out_rank;
    }
    const int producer_opcode = p.nodes_[producer].opcode;
    const bool flexible = producer_opcode == opcode::kBroadcast || producer_opcode == special().constant;
    const LayoutSpan read(wanted.data(), wanted_rank);
    double copy = 0;
    if (!same_layout(read, written) && p.nodes_[producer].dims.size() >= 2 && !flexible) {
      const double moved = p.padded_bytes(n.operands[i], written) + p.padded_bytes(n.operands[i], read);
      copy = p.copy_seconds(moved);
    }
    terms_.set(first + i, copy);
    operand_spans_[i] = read;
  }
  terms_.set(first + n.operands.size(), p.op_seconds(static_cast<int32_t>(id), {out_[id].data(), out_rank_[id]}, operand_spans_.data()));
}

double IncrementalLayoutRuntime::runtime(const std::vector<int8_t>& config) {
  const LayoutProgram& p = program_;
  check_invariant(config.size() == p.configurable_.size() * 18, "IncrementalLayoutRuntime::runtime: a config of another program");
  recomputed_ = 0;
  auto block_of = [&](size_t id) {
    const int32_t slot = p.slot_of_[id];
    return slot >= 0 ? config.data() + static_cast<size_t>(slot) * 18 : nullptr;
  };
  size_t changed_slots = 0;
  for (size_t slot = 0; !config_.empty() && slot < p.configurable_.size(); ++slot)
    changed_slots += !std::equal(config.data() + slot * 18, config.data() + slot * 18 + 18, config_.data() + slot * 18);
  if (config_.empty()) {  // the first config: every node
    for (size_t id = 0; id < p.nodes_.size(); ++id) recompute(id, block_of(id));
    recomputed_ = p.nodes_.size();
    std::fill(out_changed_.begin(), out_changed_.end(), 0);
  } else if (changed_slots * 4 > p.configurable_.size()) {
    // Most slots changed (random configs): one pass over the nodes in id order, cheaper than the
    // queue for the thousand or more nodes that follow.
    for (size_t id = 0; id < p.nodes_.size(); ++id) {
      const int8_t* block = block_of(id);
      bool dirty = block != nullptr && !std::equal(block, block + 18, config_.data() + static_cast<size_t>(p.slot_of_[id]) * 18);
      for (size_t i = 0; !dirty && i < p.nodes_[id].operands.size(); ++i)
        dirty = out_changed_[static_cast<size_t>(p.nodes_[id].operands[i])];
      if (!dirty) continue;
      recompute(id, block);
      ++recomputed_;
    }
    std::fill(out_changed_.begin(), out_changed_.end(), 0);
  } else {
    // The configurable nodes whose values changed, then every reader of a layout that changed, in
    // id order (a topological order: operands come first), each once.
    auto enqueue = [&](int32_t id) {
      if (queued_[static_cast<size_t>(id)]) return;
      queued_[static_cast<size_t>(id)] = 1;
      pending_.push_back(id);
      std::push_heap(pending_.begin(), pending_.end(), std::greater<int32_t>());
    };
    for (size_t slot = 0; changed_slots > 0 && slot < p.configurable_.size(); ++slot) {
      const int8_t* block = config.data() + slot * 18;
      if (!std::equal(block, block + 18, config_.data() + slot * 18)) enqueue(p.configurable_[slot]);
    }
    while (!pending_.empty()) {
      std::pop_heap(pending_.begin(), pending_.end(), std::greater<int32_t>());
      const size_t id = static_cast<size_t>(pending_.back());
      pending_.pop_back();
      queued_[id] = 0;
      recompute(id, block_of(id));
      done_.push_back(static_cast<int32_t>(id));
      if (out_changed_[id]) {
        for (size_t k = reader_start_[id]; k < reader_start_[id + 1]; ++k) enqueue(readers_[k]);
      }
    }
    for (int32_t id : done_) out_changed_[static_cast<size_t>(id)] = 0;
    recomputed_ = done_.size();
    done_.clear();
  }
  config_ = config;
  return terms_.total();  // evaluate's sum, in its order
}

double LayoutProgram::runtime(const std::vector<int8_t>& config) const { return evaluate(config).seconds; }
double LayoutProgram::copy_bytes(const std::vector<int8_t>& config) const { return evaluate(config).copy_bytes; }

std::vector<int8_t> LayoutProgram::default_config() const { return std::vector<int8_t>(configurable_.size() * 18, -1); }

std::vector<int8_t> LayoutProgram::locally_best_config() const {
  std::vector<int8_t> config = default_config();
  for (size_t slot = 0; slot < configurable_.size(); ++slot) {
    const int32_t id = configurable_[slot];
    const SynthNode& n = nodes_[static_cast<size_t>(id)];
    // Candidates: which dim goes minor in the output, input and kernel (rest in default order).
    const int out_rank = static_cast<int>(n.dims.size());
    const int in_rank = static_cast<int>(nodes_[static_cast<size_t>(n.operands[0])].dims.size());
    const int kernel_rank = n.mxu ? static_cast<int>(nodes_[static_cast<size_t>(n.operands[1])].dims.size()) : 0;
    double best = std::numeric_limits<double>::infinity();
    std::array<int, 3> best_choice = {-1, -1, -1};
    for (int o = 0; o < out_rank; ++o) {
      for (int i = 0; i < std::max(in_rank, 1); ++i) {
        for (int k = 0; k < std::max(kernel_rank, 1); ++k) {
          const std::vector<int> out = resolve_layout(std::array<int8_t, 6>{static_cast<int8_t>(o), -1, -1, -1, -1, -1}.data(), n.layout);
          std::vector<std::vector<int>> operands;
          const std::array<int8_t, 6> in_block{static_cast<int8_t>(i), -1, -1, -1, -1, -1};
          operands.push_back(resolve_layout(in_block.data(), nodes_[static_cast<size_t>(n.operands[0])].layout));
          for (size_t extra = 1; extra < n.operands.size(); ++extra) {
            const std::array<int8_t, 6> k_block{static_cast<int8_t>(k), -1, -1, -1, -1, -1};
            operands.push_back(extra == 1 && n.mxu ? resolve_layout(k_block.data(), nodes_[static_cast<size_t>(n.operands[1])].layout)
                                                   : nodes_[static_cast<size_t>(n.operands[extra])].layout);
          }
          const std::vector<LayoutSpan> spans(operands.begin(), operands.end());
          const double seconds = op_seconds(id, out, spans.data());
          if (seconds < best - 1e-15) {
            best = seconds;
            best_choice = {o, i, n.mxu ? k : -1};
          }
        }
      }
    }
    int8_t* block = config.data() + slot * 18;
    block[kOutputBlock] = static_cast<int8_t>(best_choice[0]);
    block[kInputBlock] = static_cast<int8_t>(best_choice[1]);
    if (best_choice[2] >= 0) block[kKernelBlock] = static_cast<int8_t>(best_choice[2]);
  }
  return config;
}

TileKernel tile_kernel_of(const HloBuilder& kernel) { return tile_kernel_of(kernel.nodes()); }

const SynthNode& kernel_root(const std::vector<SynthNode>& nodes) {
  const SynthNode* root = &nodes.back();
  for (const SynthNode& n : nodes) {
    if (n.features[0] == 1) root = &n;
  }
  return *root;
}

TileKernel tile_kernel_of(const std::vector<SynthNode>& nodes) {
  TileKernel tile;
  const SynthNode* root = &kernel_root(nodes);
  tile.output_dims = root->dims;
  double elements = 1;
  for (int64_t d : root->dims) elements *= static_cast<double>(d);
  double flops = 0, input_bytes = 0;
  for (const SynthNode& n : nodes) {
    flops += n.flops;
    tile.mxu = tile.mxu || n.mxu;
    if (n.opcode == opcode::kParameter) {
      double count = 1;
      for (int64_t d : n.dims) count *= static_cast<double>(d);
      input_bytes += count * element_bytes(n.type);
    }
  }
  tile.flops_per_element = flops / elements;
  tile.bytes_per_element = input_bytes / elements + element_bytes(root->type);
  return tile;
}

double tile_runtime(const TileKernel& kernel, const std::vector<int64_t>& tile, const HardwareModel& hardware) {
  const size_t rank = kernel.output_dims.size();
  double tiles = 1, padded_elements = 1;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = tile[d];
    tiles *= static_cast<double>((kernel.output_dims[d] + size - 1) / size);
    int64_t padded = size;
    if (d + 1 == rank) padded = round_up(size, hardware.lanes);
    else if (d + 2 == rank) padded = round_up(size, hardware.sublanes);
    padded_elements *= static_cast<double>(padded);
  }
  const double bytes = padded_elements * kernel.bytes_per_element;
  const double rate = kernel.mxu ? hardware.mxu_flops_bf16 : hardware.vector_flops;
  double per_tile = std::max(padded_elements * kernel.flops_per_element / rate, bytes / hardware.hbm_bytes_per_second);
  if (2 * bytes > hardware.vmem_bytes) per_tile *= hardware.spill_slowdown;  // double-buffered working set
  return tiles * (per_tile + hardware.tile_overhead_seconds);
}

double measure(double seconds, double sigma, std::mt19937_64& random) { return seconds * std::exp(sigma * standard_normal(random)); }

}  // namespace graphcost
