// Graph partitions for Graph Segment Training (GST, Cao et al. 2023): a GraphView's nodes cut into
// segments of about `segment_nodes` nodes, either by METIS (fewest cut edges, Debian's libmetis)
// or as contiguous ranges of node ids (the TpuGraphs node order is a topological order, so ranges
// are runs of consecutive ops). Every view node lands in exactly one segment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/named_values.h"
#include "model/graph_view.h"

namespace graphcost {

enum class PartitionMethod { Metis, Contiguous };
const NameTable<PartitionMethod>& partition_method_names();  // "metis", "contiguous"

struct GraphPartition {
  std::vector<std::vector<int32_t>> segments;  // view indices, ascending within each segment
  int64_t cut_edges = 0;                       // edges between different segments
};

// ceil(view.size() / segment_nodes) segments (at least 1). METIS may leave a part empty; empty
// parts are dropped. InputError if METIS is not in this build (WebAssembly), InternalError if it fails.
GraphPartition partition_graph(const GraphView& view, int segment_nodes, PartitionMethod method, uint64_t seed = 0);

}  // namespace graphcost
