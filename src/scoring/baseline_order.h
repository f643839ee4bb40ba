// Simple, model-free config orders: the baselines of the leaderboard and of the model comparisons.
//   first           configs in file order
//   reverse         file order reversed
//   random          a seeded shuffle (Fisher-Yates over mt19937_64: identical on every platform)
//   fewest-changes  layout: configs changing the fewest configurable nodes first, a node being
//                   changed when its 18 values differ from the values most configs of the file
//                   give it (a search around the compiler's choice makes that choice the most
//                   common; -1 alone is not "default": random files set most nodes explicitly).
//                   Ties keep file order. Tile: the largest kernel tiles first
//                   (kernel_bounds_product, descending): fewer tiles, less per-tile overhead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/named_values.h"
#include "data/tpu_graph.h"

namespace graphcost {

enum class BaselineStrategy { First, Reverse, Random, FewestChanges };
const NameTable<BaselineStrategy>& baseline_strategy_names();  // "first", "reverse", "random", "fewest-changes"

std::vector<int32_t> baseline_order(const TpuGraph& graph, BaselineStrategy strategy, uint64_t seed);

// Layout: for each of `configs`, how many configurable nodes it changes (see fewest-changes).
std::vector<float> layout_change_counts(const TpuGraph& graph, const std::vector<int32_t>& configs);

}  // namespace graphcost
