#include "scoring/baseline_order.h"

#include "data/graph_summary.h"
#include "data/node_features.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

namespace graphcost {

const NameTable<BaselineStrategy>& baseline_strategy_names() {
  static const NameTable<BaselineStrategy> names = {{"first", BaselineStrategy::First},
                                                    {"reverse", BaselineStrategy::Reverse},
                                                    {"random", BaselineStrategy::Random},
                                                    {"fewest-changes", BaselineStrategy::FewestChanges}};
  return names;
}

std::vector<int32_t> baseline_order(const TpuGraph& graph, BaselineStrategy strategy, uint64_t seed) {
  std::vector<int32_t> order(static_cast<size_t>(graph.config_count));
  std::iota(order.begin(), order.end(), 0);
  if (strategy == BaselineStrategy::First) return order;
  if (strategy == BaselineStrategy::Reverse) {
    std::reverse(order.begin(), order.end());
    return order;
  }
  if (strategy == BaselineStrategy::Random) {
    std::mt19937_64 random(seed);
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random() % i]);
    return order;
  }
  // FewestChanges (see the header).
  std::vector<double> key(order.size());
  const std::vector<float> changes = graph.kind == GraphKind::Layout ? layout_change_counts(graph, order) : std::vector<float>();
  for (int32_t c = 0; c < graph.config_count; ++c) {
    const size_t row = static_cast<size_t>(c) * kTileConfigFeatureCount;
    key[c] = graph.kind == GraphKind::Layout ? changes[static_cast<size_t>(c)]
                                             : -static_cast<double>(graph.tile_config_features[row + kTileKernelBoundsProductColumn]);
  }
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return key[a] < key[b]; });
  return order;
}

std::vector<float> layout_change_counts(const TpuGraph& graph, const std::vector<int32_t>& configs) {
  check_invariant(graph.kind == GraphKind::Layout, "layout_change_counts needs a layout graph");
  const int32_t nodes = graph.configurable_count();
  const size_t width = 18;  // layout values per configurable node
  auto row = [&](int32_t config, int32_t slot) {
    return graph.layout_config_features.data() +
           (static_cast<size_t>(config) * static_cast<size_t>(nodes) + static_cast<size_t>(slot)) * width;
  };
  const std::vector<int8_t> mode = most_common_layout_values(graph);
  std::vector<float> costs;
  for (int32_t c : configs) {
    int changed = 0;
    for (int32_t slot = 0; slot < nodes; ++slot) {
      changed +=
          !std::equal(row(c, slot), row(c, slot) + width, mode.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(slot) * width));
    }
    costs.push_back(static_cast<float>(changed));
  }
  return costs;
}

}  // namespace graphcost
