#include "model/graph_view.h"

#include <algorithm>

namespace graphcost {
namespace {

nn::Adjacency build_csr(int32_t nodes, const std::vector<std::pair<int32_t, int32_t>>& pairs) {
  // pairs: (node, neighbour)
  nn::Adjacency adjacency;
  adjacency.nodes = nodes;
  adjacency.offsets.assign(static_cast<size_t>(nodes) + 1, 0);
  for (const auto& [node, neighbour] : pairs) ++adjacency.offsets[static_cast<size_t>(node) + 1];
  for (int32_t i = 0; i < nodes; ++i) adjacency.offsets[static_cast<size_t>(i) + 1] += adjacency.offsets[static_cast<size_t>(i)];
  adjacency.neighbours.resize(pairs.size());
  std::vector<int32_t> fill(adjacency.offsets.begin(), adjacency.offsets.end() - 1);
  for (const auto& [node, neighbour] : pairs) adjacency.neighbours[static_cast<size_t>(fill[static_cast<size_t>(node)]++)] = neighbour;
  return adjacency;
}

}  // namespace

GraphView make_graph_view(const TpuGraph& graph, int hops) {
  const int32_t n = graph.node_count;
  std::vector<int32_t> view_of(static_cast<size_t>(n), -1);
  GraphView view;
  if (hops < 0 || graph.configurable_nodes.empty()) {
    view.nodes.resize(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) view.nodes[static_cast<size_t>(i)] = i;
  } else {
    // The whole graph's view (its indices are node ids), then the neighbourhood of the
    // configurable nodes in it; the pruned view's edges are then taken in the file's order.
    view.nodes = k_hop_neighbourhood(make_graph_view(graph, -1), graph.configurable_nodes, hops);
  }
  for (size_t v = 0; v < view.nodes.size(); ++v) view_of[static_cast<size_t>(view.nodes[v])] = static_cast<int32_t>(v);
  std::vector<std::pair<int32_t, int32_t>> in_pairs, out_pairs;
  for (const Edge& e : graph.edges) {
    const int32_t consumer = view_of[static_cast<size_t>(e.consumer)], producer = view_of[static_cast<size_t>(e.producer)];
    if (consumer < 0 || producer < 0) continue;
    in_pairs.emplace_back(consumer, producer);
    out_pairs.emplace_back(producer, consumer);
  }
  view.producers = build_csr(view.size(), in_pairs);
  view.consumers = build_csr(view.size(), out_pairs);
  for (int32_t id : graph.configurable_nodes) view.configurable.push_back(view_of[static_cast<size_t>(id)]);
  return view;
}

std::vector<int32_t> k_hop_neighbourhood(const GraphView& view, const std::vector<int32_t>& core, int hops) {
  std::vector<char> inside(static_cast<size_t>(view.size()), 0);
  std::vector<int32_t> frontier = core, result = core;
  for (int32_t v : core) inside[static_cast<size_t>(v)] = 1;
  for (int round = 0; round < hops && !frontier.empty(); ++round) {
    std::vector<int32_t> next;
    for (int32_t v : frontier) {
      for (const nn::Adjacency* adjacency : {&view.producers, &view.consumers}) {
        for (int32_t k = adjacency->offsets[static_cast<size_t>(v)]; k < adjacency->offsets[static_cast<size_t>(v) + 1]; ++k) {
          const int32_t u = adjacency->neighbours[static_cast<size_t>(k)];
          if (inside[static_cast<size_t>(u)]) continue;
          inside[static_cast<size_t>(u)] = 1;
          next.push_back(u);
          result.push_back(u);
        }
      }
    }
    frontier.swap(next);
  }
  std::sort(result.begin(), result.end());
  return result;
}

GraphView induced_view(const GraphView& view, const std::vector<int32_t>& kept) {
  std::vector<int32_t> local(static_cast<size_t>(view.size()), -1);
  GraphView sub;
  for (size_t i = 0; i < kept.size(); ++i) {
    local[static_cast<size_t>(kept[i])] = static_cast<int32_t>(i);
    sub.nodes.push_back(view.nodes[static_cast<size_t>(kept[i])]);
  }
  std::vector<std::pair<int32_t, int32_t>> in_pairs, out_pairs;
  for (int32_t v : kept) {
    for (int32_t k = view.producers.offsets[static_cast<size_t>(v)]; k < view.producers.offsets[static_cast<size_t>(v) + 1]; ++k) {
      const int32_t producer = local[static_cast<size_t>(view.producers.neighbours[static_cast<size_t>(k)])];
      if (producer < 0) continue;
      in_pairs.emplace_back(local[static_cast<size_t>(v)], producer);
      out_pairs.emplace_back(producer, local[static_cast<size_t>(v)]);
    }
  }
  sub.producers = build_csr(sub.size(), in_pairs);
  sub.consumers = build_csr(sub.size(), out_pairs);
  for (size_t k = 0; k < view.configurable.size(); ++k) {
    const int32_t v = local[static_cast<size_t>(view.configurable[k])];
    if (v < 0) continue;
    sub.configurable.push_back(v);
    sub.configurable_slot.push_back(view.configurable_slot.empty() ? static_cast<int32_t>(k) : view.configurable_slot[k]);
  }
  return sub;
}

}  // namespace graphcost
