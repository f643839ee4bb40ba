// Importing a user's HLO module (text or binary) as TpuGraphs graphs (`graphcost import`;
// docs/import.md). The loader every tool uses for a graph argument, which imports modules through
// this on the fly, is hlo/graph_file.h.
//
// Memory: the module is read whole (its bytes must fit the input memory limit,
// GRAPHCOST_MEMORY_LIMIT) and kept; `import` then writes the graph a few rows at a time
// (hlo/hlo_graph_writer.h) and tile kernels one at a time, so its peak is a small multiple of the
// text whatever the config or kernel count. Tools that need the whole graph in memory (rank, info,
// draw, the app) refuse a module whose graph would pass the limit, saying how much it needs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/tpu_graph.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_module.h"
#include "hlo/module_file.h"
#include "hlo/tuning_records.h"

namespace graphcost {

struct HloImportOptions {
  int random_configs = 100;  // layout: configs drawn beside config 0 (the module's own layouts)
  uint64_t seed = 0;
  int max_tile_configs = 1000;  // tile: at most this many configs per kernel
};

// Where the time of an import went (seconds), for the command's report and the benchmark.
struct HloImportTimes {
  double read = 0, parse = 0, graph = 0, configs = 0;
};

// Reads the module at `path`, whatever its format (hlo/module_file.h: HLO text, an HloProto or
// HloModuleProto, or the module of a ModuleTuningData). InputError (file:line:column, or the byte
// offset in a proto) on bad input, a TuningData of several modules, or a file past the input
// memory limit. `format`, when given, receives the file's format.
HloModule read_hlo_module(const std::string& path, HloImportTimes* times = nullptr, ModuleFileFormat* format = nullptr);
// The same from a file's bytes already read (read_module_file) and told (detect_module_file_format).
HloModule module_from_bytes(std::string bytes, ModuleFileFormat format, const std::string& source);

// "resnet.hlo: HLO text, module jit_f": where a graph built from a module comes from.
std::string module_source_text(const std::string& path, ModuleFileFormat format, const HloModule& module);
// "resnet.hlo: HLO text, module jit_f; config 0 its own layouts, 100 random (seed 0)": what an
// imported file says of where it comes from (TpuGraph::provenance).
std::string module_provenance(const std::string& path, ModuleFileFormat format, const HloModule& module, int random_configs, uint64_t seed);
// "op_tuning_data.pb: TuningData module 3 of 10, fusion.205 (fingerprint ...); 16 of 16 runs kept, default 45021 ns".
std::string record_provenance(const std::string& path, ModuleFileFormat format, const ModuleTuningRecord& record, size_t index,
                              size_t count, bool tile);

struct HloLayoutImport {
  TpuGraph graph;                          // kind Layout, with configs (runtimes hidden)
  HloModule module;                        // the program the graph was built from (a config is written back into it)
  std::vector<int32_t> computation_first;  // the graph's node offset of each computation (hlo_graph.h)
  int64_t computations = 0;
  std::vector<std::string> unknown_opcodes;  // node_opcode 0, once each
  HloImportTimes times;
};

// The layout graph of the module at `path` with configs, in memory. InputError also when the
// graph and its configs would need more than the input memory limit.
HloLayoutImport import_hlo_layout(const std::string& path, const HloImportOptions& options);
// The same of a module already read (an instruction's kernel, say: hlo/fusion_kernels.h, kernel_module);
// `path` and `format` name where it came from in the graph's source and provenance.
HloLayoutImport import_module_layout(HloModule module, const std::string& path, ModuleFileFormat format, const HloImportOptions& options);

// What a tile import did with each fusion of a module.
struct HloTileKernels {
  int64_t written = 0;
  std::vector<std::string> skipped;  // "fusion.3 (output f32[?,8]: an unbounded dynamic dimension has no tile sizes)"
  std::vector<std::string> unknown_opcodes;
};
// Builds each fusion's kernel with its tile configs and hands it to `each`, one at a time (memory
// is one kernel's, however many the module holds). A kernel whose output has an unbounded
// dynamic dimension (`?`) has no tile sizes: it is skipped and listed. `site` indexes fusion_sites(module).
HloTileKernels for_each_tile_kernel(const HloModule& module, const HloImportOptions& options,
                                    const std::function<void(FusionKernel& kernel, size_t site)>& each);

}  // namespace graphcost
