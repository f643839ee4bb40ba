#include "hlo/hlo_import.h"

#include <algorithm>
#include <chrono>

#include "common/input_error.h"
#include "common/memory_limit.h"
#include "hlo/module_configs.h"
#include "io/byte_source.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string read_text_file(const std::string& path) {
  const ByteSource file = ByteSource::open_file(path);
  if (file.size() > input_memory_limit()) {
    throw InputError(path, "size", "at most the input memory limit " + format_byte_size(input_memory_limit()) + " (GRAPHCOST_MEMORY_LIMIT)",
                     format_byte_size(file.size()));
  }
  std::string text(static_cast<size_t>(file.size()), '\0');
  if (!text.empty()) file.read(0, text.size(), reinterpret_cast<uint8_t*>(text.data()), "HLO text");
  return text;
}

void merge_unknown(std::vector<std::string>& into, const std::vector<std::string>& more) {
  for (const std::string& opcode : more) {
    if (std::find(into.begin(), into.end(), opcode) == into.end()) into.push_back(opcode);
  }
}

// The layout graph of a parsed module (the text may be gone: the module holds copies).
HloLayoutImport layout_import_of(const HloModule& module, const std::string& source, const HloImportOptions& options) {
  HloLayoutImport result;
  auto start = Clock::now();
  HloGraph hlo = build_hlo_graph(module);
  result.times.graph = seconds_since(start);
  start = Clock::now();
  add_layout_configs(module, hlo, options.random_configs, options.seed);
  result.times.configs = seconds_since(start);
  result.graph = std::move(hlo.graph);
  result.graph.source = source;
  result.graph.location = DatasetPath{};
  result.computations = static_cast<int64_t>(module.computations.size());
  result.unknown_opcodes = std::move(hlo.unknown_opcodes);
  return result;
}

}  // namespace

HloLayoutImport import_hlo_layout_text(std::string_view text, const std::string& source, const HloImportOptions& options) {
  const auto start = Clock::now();
  const HloModule module = parse_hlo_module(text, source);
  const double parse = seconds_since(start);
  HloLayoutImport result = layout_import_of(module, source, options);
  result.times.parse = parse;
  return result;
}

HloLayoutImport import_hlo_layout(const std::string& path, const HloImportOptions& options) {
  auto start = Clock::now();
  std::string text = read_text_file(path);
  const double read = seconds_since(start);
  start = Clock::now();
  const HloModule module = parse_hlo_module(text, path);
  const double parse = seconds_since(start);
  std::string().swap(text);  // the module holds what it needs: the text's memory goes to the graph
  HloLayoutImport result = layout_import_of(module, path, options);
  result.times.read = read;
  result.times.parse = parse;
  return result;
}

HloTileImport import_hlo_tile_kernels(const std::string& path, const HloImportOptions& options) {
  HloTileImport result;
  auto start = Clock::now();
  const std::string text = read_text_file(path);
  result.times.read = seconds_since(start);
  start = Clock::now();
  const HloModule module = parse_hlo_module(text, path);
  result.times.parse = seconds_since(start);
  start = Clock::now();
  result.kernels = fusion_kernels(module);
  result.times.graph = seconds_since(start);
  start = Clock::now();
  for (size_t k = 0; k < result.kernels.size(); ++k) {
    FusionKernel& kernel = result.kernels[k];
    merge_unknown(result.unknown_opcodes, kernel.hlo.unknown_opcodes);
    add_tile_configs(kernel.hlo.graph, kernel.output.dims, kernel.output.minor_to_major, options.max_tile_configs, options.seed + k);
  }
  result.times.configs = seconds_since(start);
  return result;
}

TpuGraph load_graph_file(const std::string& path) {
  if (!is_hlo_text_path(path)) return load_tpu_graph(path);
  return import_hlo_layout(path, HloImportOptions{}).graph;
}

}  // namespace graphcost
