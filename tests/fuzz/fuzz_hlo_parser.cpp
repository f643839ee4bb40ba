// libFuzzer target: arbitrary bytes as HLO text. Parsing must never crash or hang: it returns a
// module or throws InputError; a parsed module must build its graph, configs and tile kernels.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/input_error.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_module.h"
#include "hlo/module_configs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const graphcost::HloModule module = graphcost::parse_hlo_module(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.hlo");
    graphcost::HloGraph graph = graphcost::build_hlo_graph(module);
    graphcost::add_layout_configs(module, graph, 3, 1);
    for (graphcost::FusionKernel& kernel : graphcost::fusion_kernels(module)) {
      graphcost::add_tile_configs(kernel.hlo.graph, kernel.output.dims, kernel.output.minor_to_major, 8, 1);
    }
  } catch (const graphcost::InputError&) {
  }
  return 0;
}
