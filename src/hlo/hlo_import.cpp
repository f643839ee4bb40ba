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

// What a module's graph takes in memory (TpuGraph: features, edges, names; configs as int8), so
// that a tool refuses what would pass the limit instead of running out of memory part way.
void check_graph_fits(const HloModule& module, int64_t configs) {
  uint64_t bytes = module.bytes ? module.bytes->size() : 0;  // names and features' sources, kept
  int64_t configurable_bound = 0;
  for (const HloComputation& computation : module.computations) {
    for (const HloInstruction& instruction : computation.instructions) {
      // 140 features, opcode, an edge or two, two name strings and a computation index.
      bytes += kNodeFeatureCount * sizeof(float) + 1 + 2 * sizeof(Edge) + 2 * sizeof(std::string) + sizeof(int32_t);
      configurable_bound += instruction.opcode == "convolution" || instruction.opcode == "dot" || instruction.opcode == "reshape";
    }
  }
  bytes += static_cast<uint64_t>(configs) * static_cast<uint64_t>(configurable_bound) * kLayoutConfigFeatureCount;
  if (bytes > input_memory_limit()) {
    throw InputError(module.source, "graph", "at most the input memory limit " + format_byte_size(input_memory_limit()) +
                                                 " in memory (GRAPHCOST_MEMORY_LIMIT; `graphcost import` writes any size a few rows at a time)",
                     "about " + format_byte_size(bytes) + " for " + std::to_string(module.instruction_count()) + " nodes and " +
                         std::to_string(configs) + " configs");
  }
}

}  // namespace

HloModule read_hlo_module(const std::string& path, HloImportTimes* times) {
  auto start = Clock::now();
  std::string text = read_text_file(path);
  if (times != nullptr) times->read = seconds_since(start);
  start = Clock::now();
  HloModule module = parse_hlo_module(std::move(text), path);
  if (times != nullptr) times->parse = seconds_since(start);
  return module;
}

HloLayoutImport import_hlo_layout(const std::string& path, const HloImportOptions& options) {
  HloLayoutImport result;
  const HloModule module = read_hlo_module(path, &result.times);
  check_graph_fits(module, 1 + static_cast<int64_t>(std::max(0, options.random_configs)));
  auto start = Clock::now();
  HloGraph hlo = build_hlo_graph(module);
  result.times.graph = seconds_since(start);
  start = Clock::now();
  add_layout_configs(module, hlo, options.random_configs, options.seed);
  result.times.configs = seconds_since(start);
  result.graph = std::move(hlo.graph);
  result.graph.source = path;
  result.graph.location = DatasetPath{};
  check_features_finite(result.graph);  // the reader refuses what would overflow; this keeps it so
  result.computations = static_cast<int64_t>(module.computations.size());
  result.unknown_opcodes = std::move(hlo.unknown_opcodes);
  return result;
}

HloTileKernels for_each_tile_kernel(const HloModule& module, const HloImportOptions& options,
                                    const std::function<void(FusionKernel& kernel, size_t site)>& each) {
  HloTileKernels result;
  const std::vector<FusionSite> sites = fusion_sites(module);
  for (size_t k = 0; k < sites.size(); ++k) {
    FusionKernel kernel = fusion_kernel(module, sites[k]);
    merge_unknown(result.unknown_opcodes, kernel.hlo.unknown_opcodes);
    if (kernel.output.has_dynamic_dimension()) {
      result.skipped.push_back(kernel.computation + "/" + kernel.fusion + " (its output has an unbounded dynamic dimension '?': no tile sizes)");
      continue;
    }
    add_tile_configs(kernel.hlo.graph, kernel.output.dims, kernel.output.minor_to_major, options.max_tile_configs, options.seed + k);
    check_features_finite(kernel.hlo.graph);
    each(kernel, k);
    ++result.written;
  }
  return result;
}

TpuGraph load_graph_file(const std::string& path) {
  if (!is_hlo_text_path(path)) return load_tpu_graph(path);
  return import_hlo_layout(path, HloImportOptions{}).graph;
}

}  // namespace graphcost
