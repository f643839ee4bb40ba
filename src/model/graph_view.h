// GraphView: the part of a TpuGraph a model runs on, with CSR neighbour lists in both directions.
// Built either for the whole graph or pruned to the configurable nodes and their k-hop
// neighbourhood (the winning Kaggle models' pruning: 1 hop shrank graphs ~6x with no loss).
#pragma once

#include <cstdint>
#include <vector>

#include "data/tpu_graph.h"
#include "nn/ops.h"

namespace graphcost {

struct GraphView {
  std::vector<int32_t> nodes;         // original node id of each view node, ascending
  nn::Adjacency producers;            // for each view node: the view nodes it reads (in-edges)
  nn::Adjacency consumers;            // for each view node: the view nodes reading it (out-edges)
  std::vector<int32_t> configurable;  // view index of each configurable node (layout), in order
  // For a view holding only some configurable nodes (a segment: induced_view), the position of
  // each `configurable` entry in the graph's configurable list; empty: all of them, in order.
  std::vector<int32_t> configurable_slot;
  int32_t size() const { return static_cast<int32_t>(nodes.size()); }
};

// All nodes; `hops` < 0. Otherwise the configurable nodes and every node within `hops` edges of one
// (either direction). Tile graphs have no configurable nodes: their view is always whole.
GraphView make_graph_view(const TpuGraph& graph, int hops = -1);

// The view nodes within `hops` edges (either direction) of `core`, core included, ascending; the
// breadth-first search behind pruning, segment halos and the app's k-hop highlight. `core` holds
// distinct view indices.
std::vector<int32_t> k_hop_neighbourhood(const GraphView& view, const std::vector<int32_t>& core, int hops);

// The subgraph of `view` induced by `kept` (ascending view indices): those nodes, the edges between
// them, and the configurable nodes among them (with their slots).
GraphView induced_view(const GraphView& view, const std::vector<int32_t>& kept);

}  // namespace graphcost
