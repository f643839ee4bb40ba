// load_graph_file: the one loader every tool uses for a graph argument (info, draw, rank, search,
// simulate, tune, the app), whatever the file holds. A TpuGraphs .npz (hlo/module_file.h's
// is_npz_file) is read as it is (load_tpu_graph); tuning records of one module become the labelled
// graph the dataset builds from them (hlo/tuning_records.h); any other module (HLO text, an
// HloProto or HloModuleProto) is imported as a layout graph with the default options
// (hlo/hlo_import.h: config 0 its own layouts, 100 random). It lives in hlo/, the first module that
// can read every one of those formats (data/ comes before it and reads only .npz).
//
// Memory: as the readers', against the input memory limit (GRAPHCOST_MEMORY_LIMIT); a module whose
// graph would pass it is refused, saying how much it needs.
#pragma once

#include <string>

#include "data/tpu_graph.h"

namespace graphcost {

// InputError naming the file (and the line, column or byte offset) on bad input, or for a
// TuningData of several modules.
TpuGraph load_graph_file(const std::string& path);

}  // namespace graphcost
