// Importing a user's HLO text module as TpuGraphs graphs (`graphcost import`; docs/import.md), and
// the one loader every tool uses for a graph argument: an .npz is read as it is, an .hlo / .txt file
// is imported on the fly as a layout graph with the default options.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/tpu_graph.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_module.h"

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

struct HloLayoutImport {
  TpuGraph graph;  // kind Layout, with configs (runtimes hidden)
  int64_t computations = 0;
  std::vector<std::string> unknown_opcodes;  // node_opcode 0, once each
  HloImportTimes times;
};

// Reads `path` and builds its layout graph with configs. InputError (file:line:column) on bad text.
HloLayoutImport import_hlo_layout(const std::string& path, const HloImportOptions& options);
HloLayoutImport import_hlo_layout_text(std::string_view text, const std::string& source, const HloImportOptions& options);

struct HloTileImport {
  std::vector<FusionKernel> kernels;  // each kernel's hlo.graph has its tile configs
  std::vector<std::string> unknown_opcodes;
  HloImportTimes times;
};
// One tile graph per fusion instruction (none when the module has no fusion: a pre-optimization
// module; the caller says so).
HloTileImport import_hlo_tile_kernels(const std::string& path, const HloImportOptions& options);

// An .npz through load_tpu_graph; an .hlo / .txt through import_hlo_layout with default options.
TpuGraph load_graph_file(const std::string& path);

}  // namespace graphcost
