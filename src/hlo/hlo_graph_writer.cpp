#include "hlo/hlo_graph_writer.h"

#include <algorithm>
#include <string_view>

#include "common/input_error.h"
#include "data/node_features.h"
#include "hlo/hlo_features.h"
#include "hlo/hlo_graph.h"
#include "io/npz_file.h"

namespace graphcost {
namespace {

using Sink = ZipWriter::ByteSink;

// Values gathered in a small buffer and handed to the sink when it fills; flush() hands the rest
// (not the destructor: writing may throw).
template <typename T>
class BufferedSink {
 public:
  explicit BufferedSink(const Sink& sink) : sink_(sink) { buffer_.reserve(kValues); }
  void put(T value) {
    buffer_.push_back(value);
    if (buffer_.size() == kValues) flush();
  }
  void flush() {
    if (!buffer_.empty()) sink_(buffer_.data(), buffer_.size() * sizeof(T));
    buffer_.clear();
  }

 private:
  static constexpr size_t kValues = (256u << 10) / sizeof(T);
  const Sink& sink_;
  std::vector<T> buffer_;
};

// Calls `each(c, i)` for every instruction, in node order.
template <typename Each>
void for_each_instruction(const HloModule& module, Each each) {
  for (size_t c = 0; c < module.computations.size(); ++c) {
    for (size_t i = 0; i < module.computations[c].instructions.size(); ++i) each(c, i);
  }
}

// Names joined by '\n', as data/node_names.h stores them (printable: UTF-8 without control bytes).
// `for_each_name(f)` calls f(name) for each name in order; it is called twice (sizes, then bytes).
template <typename ForEachName>
void add_joined_names(NpzWriter& writer, const std::string& key, ForEachName for_each_name) {
  int64_t bytes = 0, count = 0;
  for_each_name([&](std::string_view name) {
    bytes += static_cast<int64_t>(printable(name).size());
    ++count;
  });
  writer.add_streamed(key, DType::UInt8, {bytes + std::max<int64_t>(0, count - 1)}, false, [&](const Sink& sink) {
    BufferedSink<char> out(sink);
    bool first = true;
    for_each_name([&](std::string_view name) {
      if (!first) out.put('\n');
      first = false;
      for (const char c : printable(name)) out.put(c);
    });
    out.flush();
  });
}

void add_names(NpzWriter& writer, const HloModule& module, int64_t n) {
  const auto instruction_names = [&](auto member) {
    return [&module, member](const auto& f) {
      for_each_instruction(module, [&](size_t c, size_t i) { f(module.computations[c].instructions[i].*member); });
    };
  };
  add_joined_names(writer, "node_names", instruction_names(&HloInstruction::name));
  add_joined_names(writer, "node_op_names", instruction_names(&HloInstruction::op_name));
  writer.add_streamed("node_computation", DType::Int32, {n}, false, [&](const Sink& sink) {
    BufferedSink<int32_t> out(sink);
    for_each_instruction(module, [&](size_t c, size_t) { out.put(static_cast<int32_t>(c)); });
    out.flush();
  });
  add_joined_names(writer, "computation_names", [&](const auto& f) {
    for (const HloComputation& computation : module.computations) f(std::string_view(computation.name));
  });
}

}  // namespace

HloGraphWritten write_hlo_layout_graph(const HloModule& module, LayoutConfigSource& configs, const std::string& path,
                                       const std::vector<std::string>& inputs, const std::string& provenance,
                                       const std::function<void(int64_t)>& progress) {
  HloGraphWritten written;
  const std::vector<int32_t> first = computation_first_nodes(module);
  const int64_t n = module.instruction_count();
  written.nodes = n;
  NpzWriter writer(path, ZipCompression::Deflate, inputs);

  writer.add_streamed("node_feat", DType::Float32, {n, kNodeFeatureCount}, false, [&](const Sink& sink) {
    BufferedSink<float> out(sink);
    for_each_instruction(module, [&](size_t c, size_t i) {
      const HloComputation& computation = module.computations[c];
      for (const float value : hlo_node_features(computation.instructions[i], static_cast<int32_t>(i) == computation.root)) out.put(value);
    });
    out.flush();
  });
  std::vector<uint8_t> opcodes;  // n bytes: kept for the configurable nodes' summary
  opcodes.reserve(static_cast<size_t>(n));
  for_each_instruction(module, [&](size_t c, size_t i) {
    opcodes.push_back(hlo_opcode_id(module.computations[c].instructions[i].opcode, written.unknown_opcodes));
  });
  writer.add_streamed("node_opcode", DType::UInt8, {n}, false, [&](const Sink& sink) { sink(opcodes.data(), opcodes.size()); });

  // edge_index, Fortran order as the layout files store it: every consumer, then every producer.
  std::vector<int32_t> producers;
  for_each_instruction(module, [&](size_t c, size_t i) {
    node_producers(module, first, c, i, producers);
    written.edges += static_cast<int64_t>(producers.size());
  });
  writer.add_streamed("edge_index", DType::Int64, {written.edges, 2}, true, [&](const Sink& sink) {
    BufferedSink<int64_t> out(sink);
    for (const int column : {0, 1}) {
      for_each_instruction(module, [&](size_t c, size_t i) {
        node_producers(module, first, c, i, producers);
        for (const int32_t producer : producers) out.put(column == 0 ? first[c] + static_cast<int64_t>(i) : producer);
      });
    }
    out.flush();
  });

  written.configurable_nodes = configs.configurable_nodes();
  for (const int32_t node : written.configurable_nodes) written.configurable_opcodes.push_back(opcodes[static_cast<size_t>(node)]);
  std::vector<uint8_t>().swap(opcodes);
  const int64_t nc = static_cast<int64_t>(written.configurable_nodes.size());
  written.configs = configs.config_count();
  writer.add_streamed("node_config_feat", DType::Float32, {written.configs, nc, kLayoutConfigFeatureCount}, false, [&](const Sink& sink) {
    BufferedSink<float> out(sink);
    std::vector<int8_t> rows(static_cast<size_t>(nc) * kLayoutConfigFeatureCount);
    for (int64_t config = 0; config < written.configs; ++config) {
      configs.next_config(rows.data());
      for (const int8_t value : rows) out.put(static_cast<float>(value));
      if (progress && config % 4096 == 4095) progress(config + 1);
    }
    out.flush();
  });
  writer.add_streamed("node_config_ids", DType::Int64, {nc}, false, [&](const Sink& sink) {
    BufferedSink<int64_t> out(sink);
    for (const int32_t node : written.configurable_nodes) out.put(node);
    out.flush();
  });
  std::vector<int64_t> runtimes = configs.runtimes_ns();
  if (runtimes.empty()) runtimes.assign(static_cast<size_t>(written.configs), 0);
  writer.add_streamed("config_runtime", DType::Int64, {written.configs}, false,
                      [&](const Sink& sink) { sink(runtimes.data(), runtimes.size() * sizeof(int64_t)); });
  const std::vector<int64_t> splits = hlo_node_splits(module);
  writer.add_streamed("node_splits", DType::Int64, {1, static_cast<int64_t>(splits.size())}, false,
                      [&](const Sink& sink) { sink(splits.data(), splits.size() * sizeof(int64_t)); });
  add_names(writer, module, n);
  if (!provenance.empty()) {
    writer.add_streamed("provenance", DType::UInt8, {static_cast<int64_t>(provenance.size())}, false,
                        [&](const Sink& sink) { sink(provenance.data(), provenance.size()); });
  }
  writer.finish();
  return written;
}

}  // namespace graphcost
