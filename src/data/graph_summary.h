// GraphSummary: what `graphcost info` reports about one TpuGraph. The text and JSON renderings are
// the same natively and in WebAssembly (the Node.js smoke test compares them byte for byte).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"

namespace graphcost {

struct GraphSummary {
  std::string file;
  GraphKind kind = GraphKind::Layout;
  std::string collection;  // "" outside the official tree
  std::string split;
  std::string kaggle_id;
  int64_t nodes = 0, edges = 0, configurable_nodes = 0, computations = 0;
  int64_t configs = 0, distinct_configs = 0;
  bool topologically_ordered = true;  // every edge has consumer > producer
  bool labelled = false;              // false: runtimes hidden (all zero)
  int64_t runtime_min_ns = 0, runtime_max_ns = 0;
  double relative_spread = 0;                          // (max - min) / min of the runtimes; 0 when hidden
  double normalized_min = 0, normalized_max = 0;       // tile: runtime / normalizer
  std::vector<std::pair<int, int64_t>> opcode_counts;  // (opcode id, nodes), most frequent first
  bool named = false;                                  // the file carries node names (data/node_names.h)
  int64_t named_computations = 0, op_named_nodes = 0;  // HLO computations; nodes with a metadata op_name
  std::string provenance;                              // where the contents come from (imported files), "" when unknown
};

GraphSummary summarize_graph(const TpuGraph& graph);
std::string format_graph_summary(const GraphSummary& summary);
nlohmann::json graph_summary_json(const GraphSummary& summary);

// Number of distinct config feature rows (duplicates are common in TpuGraphs).
int64_t count_distinct_configs(const TpuGraph& graph);
// The first config of each group of identical feature rows, ascending.
std::vector<int32_t> distinct_config_indices(const TpuGraph& graph);
// For every config, the first config with identical feature rows (itself when it is the first).
std::vector<int32_t> config_representatives(const TpuGraph& graph);
// `configs` (indices into the graph) grouped by identical feature rows, so each distinct row is
// computed once: `distinct` lists one config per group (its representative), in first-seen order,
// and `slot[i]` is the position in `distinct` of configs[i]'s group. Throws InternalError for an
// index outside the graph.
struct DistinctConfigs {
  std::vector<int32_t> distinct;
  std::vector<int32_t> slot;
};
DistinctConfigs group_identical_configs(const TpuGraph& graph, const std::vector<int32_t>& configs);

// Layout: per configurable node, the 18 values most of the graph's configs give it (ties: the
// smallest byte string); configurable x 18, row-major. The base of LayoutInference and the
// reference of the fewest-changes baseline. All -1 for a graph without configs.
std::vector<int8_t> most_common_layout_values(const TpuGraph& graph);

}  // namespace graphcost
