#include "cli/import_command.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/process_memory.h"
#include "data/opcodes.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_graph_writer.h"
#include "hlo/hlo_import.h"
#include "hlo/module_configs.h"

namespace graphcost {
namespace {

void warn_unknown_opcodes(const std::vector<std::string>& unknown) {
  if (unknown.empty()) return;
  std::string list;
  for (const std::string& opcode : unknown) list += (list.empty() ? "" : ", ") + printable(opcode);
  std::fprintf(stderr, "warning: opcodes outside the TpuGraphs table, stored as node_opcode 0 (unknown): %s\n", list.c_str());
}

std::string configurable_mix(const std::vector<uint8_t>& opcodes) {
  std::map<std::string, int> counts;
  for (const uint8_t opcode : opcodes) ++counts[opcode_name(opcode)];
  std::string text;
  for (const auto& [name, count] : counts) text += (text.empty() ? "" : ", ") + name + " " + std::to_string(count);
  return text.empty() ? "none" : text;
}

int import_layout(const ImportCommandOptions& options, const HloImportOptions& import_options) {
  HloImportTimes times;
  const HloModule module = read_hlo_module(options.module, &times);
  auto start = std::chrono::steady_clock::now();
  const std::unique_ptr<LayoutConfigSource> configs =
      module_layout_configs(module, computation_first_nodes(module), import_options.random_configs, import_options.seed);
  const int64_t total = configs->config_count();
  const auto progress = [&](int64_t written) {
    if (!options.quiet) std::fprintf(stderr, "\r  configs %lld / %lld", static_cast<long long>(written), static_cast<long long>(total));
  };
  const HloGraphWritten written = write_hlo_layout_graph(module, *configs, options.out, {options.module}, progress);
  if (!options.quiet && total >= 4096) std::fprintf(stderr, "\n");
  const double write = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  warn_unknown_opcodes(written.unknown_opcodes);
  std::printf("%s: %lld nodes in %zu computations, %lld edges, %zu configurable (%s), %lld configs (config 0: the module's layouts)\n",
              printable(options.module).c_str(), static_cast<long long>(written.nodes), module.computations.size(),
              static_cast<long long>(written.edges), written.configurable_nodes.size(), configurable_mix(written.configurable_opcodes).c_str(),
              static_cast<long long>(written.configs));
  if (written.configurable_nodes.empty()) {
    std::printf("no configurable node (convolution, dot or reshape of rank 2+): every config is the same program\n");
  }
  if (!options.quiet) {
    std::fprintf(stderr, "read %.1f ms, parse %.1f ms, graph, configs and write %.1f ms, peak memory %.0f MiB\n", times.read * 1e3,
                 times.parse * 1e3, write * 1e3, peak_resident_mib());
  }
  std::printf("wrote %s\n", printable(options.out).c_str());
  return 0;
}

// File names for the kernels: "<module stem>.<fusion>.npz", with the computation's name added for a
// fusion name that several computations use, and a number for what still collides once the names
// are made safe for file systems: no kernel overwrites another.
std::vector<std::string> kernel_file_stems(const HloModule& module, const std::vector<FusionSite>& sites, const std::string& stem) {
  const auto safe = [](std::string_view text) {
    std::string out(text);
    for (char& c : out) {
      if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
    }
    return out.substr(0, 100);
  };
  const auto fusion_name = [&](const FusionSite& site) {
    return module.computations[static_cast<size_t>(site.computation)].instructions[static_cast<size_t>(site.instruction)].name;
  };
  std::map<std::string_view, int> uses;
  for (const FusionSite& site : sites) ++uses[fusion_name(site)];
  std::vector<std::string> stems;
  std::map<std::string, int> taken;
  for (const FusionSite& site : sites) {
    std::string name = stem + ".";
    if (uses[fusion_name(site)] > 1) name += safe(module.computations[static_cast<size_t>(site.computation)].name) + ".";
    name += safe(fusion_name(site));
    const int copies = taken[name]++;
    stems.push_back(copies == 0 ? name : name + "." + std::to_string(copies + 1));
  }
  return stems;
}

int import_tile(const ImportCommandOptions& options, const HloImportOptions& import_options) {
  const HloModule module = read_hlo_module(options.module);
  const std::vector<FusionSite> sites = fusion_sites(module);
  if (sites.empty()) {
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
  const std::vector<std::string> stems = kernel_file_stems(module, sites, stem);
  const HloTileKernels kernels = for_each_tile_kernel(module, import_options, [&](FusionKernel& kernel, size_t site) {
    const std::string path = (std::filesystem::path(options.out) / (stems[site] + ".npz")).string();
    check_output_path(path, {options.module});
    save_tpu_graph(kernel.hlo.graph, path);
    if (!options.quiet) {
      std::fprintf(stderr, "  %s: %d nodes, %d tile configs\n", printable(path).c_str(), kernel.hlo.graph.node_count,
                   kernel.hlo.graph.config_count);
    }
  });
  warn_unknown_opcodes(kernels.unknown_opcodes);
  for (const std::string& skipped : kernels.skipped) std::fprintf(stderr, "warning: skipped %s\n", printable(skipped).c_str());
  if (kernels.written == 0) {
    throw InputError(options.module, "fusion kernels", "at least one with static output dimensions", "none of " + std::to_string(sites.size()));
  }
  std::printf("%s: %lld fusion kernels -> %s\n", printable(options.module).c_str(), static_cast<long long>(kernels.written),
              printable(options.out).c_str());
  if (!kernels.skipped.empty()) std::printf("%zu skipped (dynamic output dimensions)\n", kernels.skipped.size());
  if (!options.quiet) std::fprintf(stderr, "peak memory %.0f MiB\n", peak_resident_mib());
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
