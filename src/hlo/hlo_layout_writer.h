// A module's HLO text with one layout config written in: what `graphcost tune --oracle command`
// hands a measuring script, and what `graphcost search --out tuned.hlo` writes.
//
// For each configurable node (hlo/module_configs.h) whose block is not all -1 (the compiler's
// choice, left as written): its output block becomes the minor_to_major of its result shape, and
// its input and kernel blocks the layouts of its operands 0 and 1 at their use, written as typed
// operands (`f32[8,16]{0,1} %x`, the form XLA prints and parses). A block that gives only the first
// dims (node_config_feat may hold a prefix) is completed with the remaining dims in the order the
// text had them. Everything else is the text as it was, byte for byte: names, metadata, comments,
// tiling after ':' in a layout.
//
// Whether a compiler honours these layouts is the compiler's: XLA keeps the layouts of an entry
// computation's parameters and results, and its layout assignment treats the others as written
// constraints or hints depending on the pass pipeline (docs/tuning.md).
#pragma once

#include <string>
#include <vector>

#include "data/tpu_graph.h"
#include "hlo/hlo_module.h"

namespace graphcost {

// `module` must have been parsed from text (its bytes are the text); `graph` is its layout graph
// (configs over its configurable nodes), `computation_first` its node offsets (hlo_graph.h).
// InternalError for a module read from a proto (there is no text to write into).
std::string module_text_with_layouts(const HloModule& module, const std::vector<int32_t>& computation_first, const TpuGraph& graph,
                                     int32_t config);

}  // namespace graphcost
