// Simple, model-free config orders: the baselines of the leaderboard and of the model comparisons.
//   first           configs in file order
//   reverse         file order reversed
//   random          a seeded shuffle (Fisher-Yates over mt19937_64: identical on every platform)
//   fewest-changes  layout: configs with the fewest non-default layout blocks first (a block of
//                   six -1 values is the compiler's default); ties keep file order. Tile: the
//                   largest kernel tiles first (kernel_bounds_product, descending): fewer tiles,
//                   less per-tile overhead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/tpu_graph.h"

namespace graphcost {

const std::vector<std::string>& baseline_strategies();
// Throws std::invalid_argument for an unknown strategy name.
std::vector<int32_t> baseline_order(const TpuGraph& graph, const std::string& strategy, uint64_t seed);

}  // namespace graphcost
