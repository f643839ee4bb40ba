// load_graph_file: the one loader every tool uses for a graph argument (info, draw, rank, search,
// simulate, tune, the app), whatever the file holds. A TpuGraphs .npz (hlo/module_file.h's
// is_npz_file) is read as it is (load_tpu_graph); tuning records of one module become the labelled
// graph the dataset builds from them (hlo/tuning_records.h); any other module (HLO text, an
// HloProto or HloModuleProto) is imported as a layout graph (hlo/hlo_import.h: config 0 its own
// layouts, then `options.random_configs` random ones, 100 by default) and the module is kept, so a
// config can be written back into its text (search --out, tune's command oracle). It lives in hlo/,
// the first module that can read every one of those formats (data/ comes before it and reads only
// .npz).
//
// Memory: as the readers', against the input memory limit (GRAPHCOST_MEMORY_LIMIT); a module whose
// graph would pass it is refused, saying how much it needs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/tpu_graph.h"
#include "hlo/hlo_import.h"
#include "hlo/hlo_module.h"

namespace graphcost {

struct GraphFile {
  TpuGraph graph;
  std::optional<HloModule> module;         // a module input (HLO text or proto): the program itself
  std::vector<int32_t> computation_first;  // with a module: the graph's node offset of each computation
};

// InputError naming the file (and the line, column or byte offset) on bad input, or for a
// TuningData of several modules. `options` apply to module inputs only (the configs drawn).
GraphFile load_graph_file(const std::string& path, const HloImportOptions& options = {});

}  // namespace graphcost
