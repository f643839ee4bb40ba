#include "model/graph_partition.h"

#include <algorithm>

#ifdef GRAPHCOST_HAVE_METIS
#include <metis.h>
#endif

namespace graphcost {

const NameTable<PartitionMethod>& partition_method_names() {
  static const NameTable<PartitionMethod> names = {{"metis", PartitionMethod::Metis}, {"contiguous", PartitionMethod::Contiguous}};
  return names;
}

namespace {

std::vector<int32_t> metis_parts(const GraphView& view, int parts, uint64_t seed) {
#ifdef GRAPHCOST_HAVE_METIS
  // METIS wants an undirected graph without self loops or duplicate edges, in CSR.
  const int32_t n = view.size();
  std::vector<idx_t> offsets(static_cast<size_t>(n) + 1, 0), neighbours;
  std::vector<int32_t> seen(static_cast<size_t>(n), -1);
  for (int32_t v = 0; v < n; ++v) {
    seen[static_cast<size_t>(v)] = v;
    for (const nn::Adjacency* adjacency : {&view.producers, &view.consumers}) {
      for (int32_t k = adjacency->offsets[static_cast<size_t>(v)]; k < adjacency->offsets[static_cast<size_t>(v) + 1]; ++k) {
        const int32_t u = adjacency->neighbours[static_cast<size_t>(k)];
        if (seen[static_cast<size_t>(u)] == v) continue;
        seen[static_cast<size_t>(u)] = v;
        neighbours.push_back(u);
      }
    }
    offsets[static_cast<size_t>(v) + 1] = static_cast<idx_t>(neighbours.size());
  }
  idx_t vertices = n, constraints = 1, part_count = parts, objective = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % 1000003u);
  std::vector<idx_t> part(static_cast<size_t>(n), 0);
  if (neighbours.empty()) neighbours.push_back(0);  // METIS reads adjncy[0] even without edges
  const int status = METIS_PartGraphKway(&vertices, &constraints, offsets.data(), neighbours.data(), nullptr, nullptr, nullptr, &part_count,
                                         nullptr, nullptr, options, &objective, part.data());
  if (status != METIS_OK) throw InternalError("METIS_PartGraphKway failed (status " + std::to_string(status) + ")");
  return std::vector<int32_t>(part.begin(), part.end());
#else
  (void)view, (void)parts, (void)seed;
  throw InputError("", "partition method", "contiguous (this build has no METIS)", "metis");
#endif
}

}  // namespace

GraphPartition partition_graph(const GraphView& view, int segment_nodes, PartitionMethod method, uint64_t seed) {
  if (segment_nodes < 1) throw InputError("", "segment nodes", "at least 1", std::to_string(segment_nodes));
  const int32_t n = view.size();
  const int parts = std::max(1, static_cast<int>((static_cast<int64_t>(n) + segment_nodes - 1) / segment_nodes));
  std::vector<int32_t> part(static_cast<size_t>(n), 0);
  if (parts > 1) {
    if (method == PartitionMethod::Metis) {
      part = metis_parts(view, parts, seed);
    } else {
      for (int32_t v = 0; v < n; ++v) part[static_cast<size_t>(v)] = static_cast<int32_t>(static_cast<int64_t>(v) * parts / n);
    }
  }
  GraphPartition partition;
  std::vector<std::vector<int32_t>> segments(static_cast<size_t>(parts));
  for (int32_t v = 0; v < n; ++v) segments[static_cast<size_t>(part[static_cast<size_t>(v)])].push_back(v);
  for (auto& segment : segments) {
    if (!segment.empty()) partition.segments.push_back(std::move(segment));
  }
  for (int32_t v = 0; v < n; ++v) {
    for (int32_t k = view.consumers.offsets[static_cast<size_t>(v)]; k < view.consumers.offsets[static_cast<size_t>(v) + 1]; ++k) {
      partition.cut_edges += part[static_cast<size_t>(v)] != part[static_cast<size_t>(view.consumers.neighbours[static_cast<size_t>(k)])];
    }
  }
  return partition;
}

}  // namespace graphcost
