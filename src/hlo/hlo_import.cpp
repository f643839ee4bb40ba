#include "hlo/hlo_import.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "common/input_error.h"
#include "common/memory_limit.h"
#include "hlo/hlo_proto.h"
#include "hlo/module_configs.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

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
    throw InputError(module.source, "graph",
                     "at most the input memory limit " + format_byte_size(input_memory_limit()) +
                         " in memory (GRAPHCOST_MEMORY_LIMIT; `graphcost import` writes any size a few rows at a time)",
                     "about " + format_byte_size(bytes) + " for " + std::to_string(module.instruction_count()) + " nodes and " +
                         std::to_string(configs) + " configs");
  }
}

}  // namespace

HloModule read_hlo_module(const std::string& path, HloImportTimes* times, ModuleFileFormat* format_out) {
  auto start = Clock::now();
  std::string bytes = read_module_file(path);
  if (times != nullptr) times->read = seconds_since(start);
  start = Clock::now();
  const ModuleFileFormat format = detect_module_file_format(bytes, path);
  if (format_out != nullptr) *format_out = format;
  HloModule module = module_from_bytes(std::move(bytes), format, path);
  if (times != nullptr) times->parse = seconds_since(start);
  return module;
}

HloModule module_from_bytes(std::string bytes, ModuleFileFormat format, const std::string& source) {
  switch (format) {
    case ModuleFileFormat::HloText:
      return parse_hlo_module(std::move(bytes), source);
    case ModuleFileFormat::HloProto:
    case ModuleFileFormat::HloModuleProto:
      return parse_hlo_module_proto(std::move(bytes), source, format == ModuleFileFormat::HloProto);
    case ModuleFileFormat::ModuleTuningData:
    case ModuleFileFormat::TuningData:
      break;
  }
  std::vector<ModuleTuningRecord> records =
      read_tuning_records(std::make_shared<const std::string>(std::move(bytes)), source, format == ModuleFileFormat::TuningData);
  if (records.size() != 1) {
    throw InputError(source, "modules", "one module (`graphcost import FILE --out DIR` writes a file for each of several)",
                     std::to_string(records.size()) + " in a TuningData");
  }
  return std::move(records.front().module);
}

std::string module_source_text(const std::string& path, ModuleFileFormat format, const HloModule& module) {
  return printable(std::filesystem::path(path).filename().string()) + ": " + module_file_format_name(format) + ", module " +
         excerpt(module.name);
}

std::string module_provenance(const std::string& path, ModuleFileFormat format, const HloModule& module, int random_configs,
                              uint64_t seed) {
  std::string text = module_source_text(path, format, module) + "; config 0 its own layouts";
  if (random_configs > 0) text += ", " + std::to_string(random_configs) + " random (seed " + std::to_string(seed) + ")";
  return text + "; runtimes unmeasured";
}

std::string record_provenance(const std::string& path, ModuleFileFormat format, const ModuleTuningRecord& record, size_t index,
                              size_t count, bool tile) {
  const KeptRuns kept = kept_runs(record, tile);
  std::string text = printable(std::filesystem::path(path).filename().string()) + ": " + module_file_format_name(format);
  if (count > 1) text += " module " + std::to_string(index + 1) + " of " + std::to_string(count);
  text += ", " + excerpt(record.module.name) + " (fingerprint " + std::to_string(record.fingerprint) + "); " +
          std::to_string(kept.runs.size()) + " of " + std::to_string(record.runs.size()) + " runs kept as configs";
  if (kept.failed > 0) text += " (" + std::to_string(kept.failed) + " failed)";
  return text + ", default run " + std::to_string(kept.default_run) + ": " + std::to_string(record.runs[kept.default_run].compute_time_ns) +
         " ns";
}

HloLayoutImport import_hlo_layout(const std::string& path, const HloImportOptions& options) {
  HloImportTimes times;
  ModuleFileFormat format = ModuleFileFormat::HloText;
  HloModule module = read_hlo_module(path, &times, &format);
  HloLayoutImport result = import_module_layout(std::move(module), path, format, options);
  result.times.read = times.read;
  result.times.parse = times.parse;
  return result;
}

HloLayoutImport import_module_layout(HloModule module, const std::string& path, ModuleFileFormat format, const HloImportOptions& options) {
  HloLayoutImport result;
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
  result.graph.provenance = module_provenance(path, format, module, result.graph.config_count - 1, options.seed);
  check_features_finite(result.graph);  // the reader refuses what would overflow; this keeps it so
  result.computations = static_cast<int64_t>(module.computations.size());
  result.unknown_opcodes = std::move(hlo.unknown_opcodes);
  result.computation_first = std::move(hlo.computation_first);
  result.module = std::move(module);
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
      result.skipped.push_back(kernel.computation + "/" + kernel.fusion +
                               " (its output has an unbounded dynamic dimension '?': no tile sizes)");
      continue;
    }
    add_tile_configs(kernel.hlo.graph, kernel.output.dims, kernel.output.minor_to_major, options.max_tile_configs, options.seed + k);
    check_features_finite(kernel.hlo.graph);
    each(kernel, k);
    ++result.written;
  }
  return result;
}

}  // namespace graphcost
