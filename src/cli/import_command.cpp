#include "cli/import_command.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/process_memory.h"
#include "data/opcodes.h"
#include "hlo/hlo_import.h"

namespace graphcost {
namespace {

void warn_unknown_opcodes(const std::vector<std::string>& unknown) {
  if (unknown.empty()) return;
  std::string list;
  for (const std::string& opcode : unknown) list += (list.empty() ? "" : ", ") + printable(opcode);
  std::fprintf(stderr, "warning: opcodes outside the TpuGraphs table, stored as node_opcode 0 (unknown): %s\n", list.c_str());
}

std::string configurable_mix(const TpuGraph& graph) {
  std::map<std::string, int> counts;
  for (const int32_t node : graph.configurable_nodes) ++counts[opcode_name(graph.node_opcodes[static_cast<size_t>(node)])];
  std::string text;
  for (const auto& [name, count] : counts) text += (text.empty() ? "" : ", ") + name + " " + std::to_string(count);
  return text.empty() ? "none" : text;
}

int import_layout(const ImportCommandOptions& options, const HloImportOptions& import_options) {
  const HloLayoutImport imported = import_hlo_layout(options.module, import_options);
  warn_unknown_opcodes(imported.unknown_opcodes);
  const auto start = std::chrono::steady_clock::now();
  save_tpu_graph(imported.graph, options.out);
  const double write = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const TpuGraph& graph = imported.graph;
  std::printf("%s: %d nodes in %lld computations, %zu edges, %d configurable (%s), %d configs (config 0: the module's layouts)\n",
              printable(options.module).c_str(), graph.node_count, static_cast<long long>(imported.computations), graph.edges.size(),
              graph.configurable_count(), configurable_mix(graph).c_str(), graph.config_count);
  if (graph.configurable_count() == 0) {
    std::printf("no configurable node (convolution, dot or reshape of rank 2+): every config is the same program\n");
  }
  if (!options.quiet) {
    std::fprintf(stderr, "read %.1f ms, parse %.1f ms, graph and features %.1f ms, configs %.1f ms, write %.1f ms\n",
                 imported.times.read * 1e3, imported.times.parse * 1e3, imported.times.graph * 1e3, imported.times.configs * 1e3,
                 write * 1e3);
  }
  std::printf("wrote %s\n", printable(options.out).c_str());
  return 0;
}

int import_tile(const ImportCommandOptions& options, const HloImportOptions& import_options) {
  const HloTileImport imported = import_hlo_tile_kernels(options.module, import_options);
  warn_unknown_opcodes(imported.unknown_opcodes);
  if (imported.kernels.empty()) {
    throw InputError(options.module, "fusion instructions", "at least one (a post-optimization module: *.after_optimizations.txt)",
                     "none (a pre-optimization module?)");
  }
  std::error_code error;
  std::filesystem::create_directories(options.out, error);
  if (!std::filesystem::is_directory(options.out)) throw InputError(options.out, "--out", "a folder for the kernel files", "not a folder");
  std::string stem = std::filesystem::path(options.module).stem().string();
  for (char& c : stem) {
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  }
  for (const FusionKernel& kernel : imported.kernels) {
    const std::string path = (std::filesystem::path(options.out) / (stem + "." + kernel.fusion + ".npz")).string();
    check_output_path(path, {options.module});
    save_tpu_graph(kernel.hlo.graph, path);
    if (!options.quiet) {
      std::fprintf(stderr, "  %s: %d nodes, %d tile configs\n", printable(path).c_str(), kernel.hlo.graph.node_count,
                   kernel.hlo.graph.config_count);
    }
  }
  std::printf("%s: %zu fusion kernels -> %s\n", printable(options.module).c_str(), imported.kernels.size(), printable(options.out).c_str());
  return 0;
}

}  // namespace

int run_import_command(const ImportCommandOptions& options) {
  if (options.kind == GraphKind::Layout) check_output_path(options.out, {options.module});
  HloImportOptions import_options;
  import_options.seed = options.seed;
  if (options.kind == GraphKind::Layout) {
    if (options.configs >= 0) import_options.random_configs = options.configs;
    return import_layout(options, import_options);
  }
  if (options.configs >= 0) import_options.max_tile_configs = std::max(1, options.configs);
  return import_tile(options, import_options);
}

}  // namespace graphcost
