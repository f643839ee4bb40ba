#include "scoring/baseline_order.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace graphcost {
namespace {

int non_default_blocks(const TpuGraph& graph, int32_t config) {
  int count = 0;
  for (int32_t slot = 0; slot < graph.configurable_count(); ++slot) {
    for (int block = 0; block < 3; ++block) {
      bool all_default = true;
      for (int k = 0; k < 6; ++k) all_default = all_default && graph.layout_value(config, slot, block * 6 + k) == -1;
      count += all_default ? 0 : 1;
    }
  }
  return count;
}

}  // namespace

const std::vector<std::string>& baseline_strategies() {
  static const std::vector<std::string> names = {"first", "reverse", "random", "fewest-changes"};
  return names;
}

std::vector<int32_t> baseline_order(const TpuGraph& graph, const std::string& strategy, uint64_t seed) {
  std::vector<int32_t> order(static_cast<size_t>(graph.config_count));
  std::iota(order.begin(), order.end(), 0);
  if (strategy == "first") return order;
  if (strategy == "reverse") {
    std::reverse(order.begin(), order.end());
    return order;
  }
  if (strategy == "random") {
    std::mt19937_64 random(seed);
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random() % i]);
    return order;
  }
  if (strategy == "fewest-changes") {
    std::vector<double> key(order.size());
    for (int32_t c = 0; c < graph.config_count; ++c) {
      key[c] = graph.kind == GraphKind::Layout ? non_default_blocks(graph, c)
                                               : -static_cast<double>(graph.tile_config_features[c * 24 + 7]);
    }
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return key[a] < key[b]; });
    return order;
  }
  throw std::invalid_argument("unknown baseline strategy '" + strategy + "' (first, reverse, random, fewest-changes)");
}

}  // namespace graphcost
