#include "cli/import_command.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "cli_options/named_option.h"
#include "cli_options/seed_option.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/process_memory.h"
#include "data/opcodes.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_graph_writer.h"
#include "hlo/hlo_import.h"
#include "hlo/module_configs.h"
#include "spaces/parameter_space.h"

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

int import_layout(const ImportCommandOptions& options, const HloImportOptions& import_options, const HloModule& module,
                  ModuleFileFormat format, const HloImportTimes& times) {
  auto start = std::chrono::steady_clock::now();
  const std::unique_ptr<LayoutConfigSource> configs =
      module_layout_configs(module, computation_first_nodes(module), import_options.random_configs, import_options.seed);
  const int64_t total = configs->config_count();
  const auto progress = [&](int64_t written) {
    if (!options.quiet) std::fprintf(stderr, "\r  configs %lld / %lld", static_cast<long long>(written), static_cast<long long>(total));
  };
  const std::string provenance = module_provenance(options.module, format, module, total - 1, import_options.seed);
  const HloGraphWritten written = write_hlo_layout_graph(module, *configs, options.out, {options.module}, provenance, progress);
  if (!options.quiet && total >= 4096) std::fprintf(stderr, "\n");
  const double write = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  warn_unknown_opcodes(written.unknown_opcodes);
  std::printf("%s: %lld nodes in %zu computations, %lld edges, %zu configurable (%s), %lld configs (config 0: the module's layouts)\n",
              printable(options.module).c_str(), static_cast<long long>(written.nodes), module.computations.size(),
              static_cast<long long>(written.edges), written.configurable_nodes.size(),
              configurable_mix(written.configurable_opcodes).c_str(), static_cast<long long>(written.configs));
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
std::string file_safe(std::string_view text) {
  std::string out(text.substr(0, 100));
  for (char& c : out) {
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  }
  return out;
}

std::string make_output_folder(const std::string& out) {
  const std::filesystem::path path(out);
  if (path.extension() == ".npz") {
    throw InputError(out, "--out", "a folder for one file per kernel or module", "a .npz file name (not a folder)");
  }
  std::error_code error;
  std::filesystem::create_directories(out, error);
  if (!std::filesystem::is_directory(out)) throw InputError(out, "--out", "a folder for the kernel files", "not a folder");
  return out;
}

std::vector<std::string> kernel_file_stems(const HloModule& module, const std::vector<FusionSite>& sites, const std::string& stem) {
  const auto safe = file_safe;
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

int import_tile(const ImportCommandOptions& options, const HloImportOptions& import_options, const HloModule& module) {
  const std::vector<FusionSite> sites = fusion_sites(module);
  if (sites.empty()) {
    throw InputError(options.module, "fusion instructions", "at least one (a post-optimization module: *.after_optimizations.txt)",
                     "none (a pre-optimization module?)");
  }
  make_output_folder(options.out);
  const std::string stem = file_safe(std::filesystem::path(options.module).stem().string());
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
    throw InputError(options.module, "fusion kernels", "at least one with static output dimensions",
                     "none of " + std::to_string(sites.size()));
  }
  std::printf("%s: %lld fusion kernels -> %s\n", printable(options.module).c_str(), static_cast<long long>(kernels.written),
              printable(options.out).c_str());
  if (!kernels.skipped.empty()) std::printf("%zu skipped (dynamic output dimensions)\n", kernels.skipped.size());
  if (!options.quiet) std::fprintf(stderr, "peak memory %.0f MiB\n", peak_resident_mib());
  return 0;
}

// Tuning records: the labelled files the dataset builds from them. One record -> --out FILE.npz;
// a TuningData of several -> --out DIR, a file per module (what the dataset would skip, skipped
// with the reason).
int import_tuning_records(const ImportCommandOptions& options, std::string bytes, ModuleFileFormat format) {
  if (options.configs >= 0) std::fprintf(stderr, "warning: --configs ignored: tuning records hold their measured configs\n");
  const std::vector<ModuleTuningRecord> records =
      read_tuning_records(std::make_shared<const std::string>(std::move(bytes)), options.module, format == ModuleFileFormat::TuningData);
  const bool folder = records.size() > 1;
  if (folder) make_output_folder(options.out);
  const std::string stem = file_safe(std::filesystem::path(options.module).stem().string());
  std::map<std::string, int> taken;
  int written = 0;
  for (size_t r = 0; r < records.size(); ++r) {
    const ModuleTuningRecord& record = records[r];
    const bool tile = is_tile_record(record);
    std::string path = options.out;
    if (folder) {
      std::string name = stem + "." + file_safe(record.module.name);
      if (taken[name]++ > 0) name += "." + std::to_string(taken[name]);
      path = (std::filesystem::path(options.out) / (name + ".npz")).string();
    }
    try {
      if (tile && record.runs.size() <= 1)
        throw InputError(options.module, excerpt(record.module.name), "more than one run", std::to_string(record.runs.size()));
      const std::string provenance = record_provenance(options.module, format, record, r, records.size(), tile);
      TpuGraph graph = tile ? tile_graph_from_record(record, provenance) : layout_graph_from_record(record, provenance);
      check_features_finite(graph);
      check_output_path(path, {options.module});
      save_tpu_graph(graph, path);
      ++written;
      std::printf("%s: %s %s, %d nodes, %d labelled configs -> %s\n", printable(options.module).c_str(),
                  tile ? "tile kernel" : "layout program", excerpt(record.module.name).c_str(), graph.node_count, graph.config_count,
                  printable(path).c_str());
    } catch (const InputError& e) {
      if (!folder) throw;
      std::fprintf(stderr, "warning: skipped module %zu of %zu (as the dataset does): %s\n", r + 1, records.size(), e.what());
    }
  }
  if (written == 0)
    throw InputError(options.module, "modules", "at least one the dataset would keep", "none of " + std::to_string(records.size()));
  if (folder) std::printf("%d of %zu modules written to %s\n", written, records.size(), printable(options.out).c_str());
  return 0;
}

}  // namespace

// A kernel's parameter space (T4 results, a Kernel Tuner cache): written as T4 results, the format
// graphcost writes (tune --out) and reads back to the same configs and outcomes, times to float
// rounding (written in ms); a T1 definition has nothing measured to write.
int import_parameter_space(const ImportCommandOptions& options) {
  const ParameterSpace space = load_parameter_space(options.module);
  if (!space.measured()) {
    throw InputError(options.module, "measurements",
                     "a measured space to write as T4 (a T1 definition needs none: `graphcost tune` measures it with --oracle command, "
                     "`graphcost info` summarizes it)",
                     "none");
  }
  check_output_path(options.out, {options.module});
  write_file_atomically(options.out,
                        t4_results_document(space, "graphcost import of " + options.module + " (" + space.format + ")").dump(1) + "\n",
                        {options.module});
  if (!options.quiet)
    std::fprintf(stderr, "%s: %zu configs of %zu parameters (%s)\n", options.module.c_str(), space.configs.size(), space.parameters.size(),
                 space.format.c_str());
  std::printf("wrote %s (T4 results)\n", options.out.c_str());
  return 0;
}

int run_import_command(const ImportCommandOptions& options) {
  if (is_parameter_space_file(options.module)) return import_parameter_space(options);
  HloImportTimes times;
  auto start = std::chrono::steady_clock::now();
  std::string bytes = read_module_file(options.module);
  times.read = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const ModuleFileFormat format = detect_module_file_format(bytes, options.module);
  if (format == ModuleFileFormat::ModuleTuningData || format == ModuleFileFormat::TuningData) {
    return import_tuning_records(options, std::move(bytes), format);
  }
  if (options.kind == GraphKind::Layout) check_output_path(options.out, {options.module});
  start = std::chrono::steady_clock::now();
  const HloModule module = module_from_bytes(std::move(bytes), format, options.module);
  times.parse = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  HloImportOptions import_options;
  import_options.seed = options.seed;
  if (options.kind == GraphKind::Layout) {
    if (options.configs >= 0) import_options.random_configs = options.configs;
    return import_layout(options, import_options, module, format, times);
  }
  if (options.configs >= 0) import_options.max_tile_configs = std::max(1, options.configs);
  return import_tile(options, import_options, module);
}

CLI::App* add_import_command(CLI::App& app, ImportCommandOptions& import) {
  CLI::App* import_command = app.add_subcommand(
      "import", "Import an XLA HLO text module (.hlo/.txt dump) as a TpuGraphs graph: layout configs to rank, or tile kernels");
  import_command
      ->add_option(
          "module", import.module,
          "HLO text (XLA_FLAGS=--xla_dump_to=DIR, or jax's .as_text(dialect=\"hlo\")) or proto, tuning records, or a kernel's measured "
          "parameter space (T4, a Kernel Tuner cache: written as T4 results)")
      ->required();
  import_command->add_option("--out", import.out, "layout: the .npz to write; tile: a folder for one .npz per fusion")->required();
  add_named_option(import_command, "--kind", import.kind, graph_kind_names(),
                   "layout (the whole program, default) or tile (one kernel per fusion of a post-optimization module)");
  import_command
      ->add_option("--configs", import.configs,
                   "layout: random configs beside config 0, the module's own layouts (default " +
                       std::to_string(HloImportOptions{}.random_configs) + "); tile: at most N per kernel (default " +
                       std::to_string(HloImportOptions{}.max_tile_configs) + ")")
      ->check(CLI::Range(0, 1000000));
  add_seed_option(import_command, import.seed, "seed of the random configs");
  import_command->add_flag("-q,--quiet", import.quiet, "no timings or per-file lines on stderr");
  return import_command;
}

}  // namespace graphcost
