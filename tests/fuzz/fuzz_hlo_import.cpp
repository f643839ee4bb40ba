// libFuzzer target: arbitrary bytes imported as `graphcost import` imports a module: parsed, built
// into the graph with its 140 features, given layout configs, and cut into tile kernels with their
// tile configs. It must never crash or hang: a module is refused (InputError) or imported, and what
// is imported is finite and in range (an abort() here is a finding).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/input_error.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_import.h"
#include "hlo/hlo_module.h"
#include "hlo/module_configs.h"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

void check_graph(const graphcost::TpuGraph& graph) {
  for (const float value : graph.node_features) require(std::isfinite(value));
  for (const float value : graph.tile_config_features) require(std::isfinite(value) && value >= 0);
  for (const graphcost::Edge& edge : graph.edges)
    require(edge.producer >= 0 && edge.producer < edge.consumer && edge.consumer < graph.node_count);
  for (const int8_t value : graph.layout_config_features) require(value >= -1 && value <= 5);
  require(graph.config_count >= 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const graphcost::HloModule module = graphcost::parse_hlo_module(std::string(reinterpret_cast<const char*>(data), size), "fuzz.hlo");
    graphcost::HloGraph graph = graphcost::build_hlo_graph(module);
    graphcost::add_layout_configs(module, graph, 3, 1);
    check_graph(graph.graph);
    graphcost::HloImportOptions options;
    options.max_tile_configs = 8;
    graphcost::for_each_tile_kernel(module, options, [](graphcost::FusionKernel& kernel, size_t) {
      check_graph(kernel.hlo.graph);
      require(kernel.hlo.graph.config_count <= 8);
    });
  } catch (const graphcost::InputError&) {
  }
  return 0;
}
