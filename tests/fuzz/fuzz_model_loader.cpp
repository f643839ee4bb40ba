// libFuzzer target: arbitrary bytes as a graphcost model file (an .npz of model_json + param/*).
// Any outcome but InputError (a crash, a sanitizer report, another exception, an allocation over
// the fuzzer's -malloc_limit_mb) is a bug. A model that loads is also run on a small fixed graph
// (non-finite costs are allowed there: `predict` refuses them with a message).
#include <cstddef>
#include <cstdint>

#include "common/input_error.h"
#include "common/memory_limit.h"
#include "model/cost_model.h"

namespace {

graphcost::TpuGraph small_graph(graphcost::GraphKind kind) {
  graphcost::TpuGraph graph;
  graph.kind = kind;
  graph.node_count = 3;
  graph.node_features.assign(3 * 140, 1.0f);
  graph.node_opcodes = {2, 3, 4};
  graph.edges = {{1, 0}, {2, 1}};
  graph.config_count = 2;
  if (kind == graphcost::GraphKind::Tile) {
    graph.tile_config_features.assign(2 * 24, 2.0f);
    graph.config_runtime_ns = {1, 2};
    graph.config_runtime_normalizers_ns = {1, 1};
  } else {
    graph.configurable_nodes = {1};
    graph.layout_config_features = std::vector<int8_t>(2 * 18, 1);
    graph.config_runtime_ns = {1, 2};
    graph.node_splits = {0};
  }
  return graph;
}

}  // namespace

// Arrays may declare at most 64 MiB in all: well under the fuzzer's -malloc_limit_mb=100, so an
// input that declares more is refused by the memory policy, as it would be under a real limit.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  graphcost::set_input_memory_limit(64u << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    graphcost::CostModel model = graphcost::CostModel::load(graphcost::ByteSource::view_memory("fuzz_model.npz", data, size));
    const graphcost::GraphKind kind = model.config().kind;
    const graphcost::TpuGraph graph = small_graph(kind);
    (void)model.predict(model.prepare(graph), 2, 1);
  } catch (const graphcost::InputError&) {
  }
  return 0;
}
