// Per-graph ranking metrics of TpuGraphs. Inputs: `runtimes` in the graph's config order (for tile
// graphs: runtime / normalizer), and `predicted_order`: config indices, predicted fastest first
// (a submission's TopConfigs). Definitions: docs/metrics.md.
#pragma once

#include <cstdint>
#include <vector>

namespace graphcost {

// Config indices ordered by cost, lowest (predicted fastest) first; ties keep index order. The one
// "costs to order" step of predict, the trainer's validation and the app.
std::vector<int32_t> order_by_cost(const std::vector<float>& costs);
std::vector<int32_t> order_by_cost(const std::vector<double>& costs);

// min(runtimes[first k predicted]) / min(runtimes): 1 when the best config is among the first k.
// InputError for no runtimes, one not positive and finite, an empty order, an index out of range
// or k < 1 (the Python package passes a user's values straight in).
double slowdown_at_k(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order, int k);
// The paper's top-K error: slowdown_at_k - 1.
double top_k_error(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order, int k);
// The Kaggle tile score: 2 - slowdown_at_k(k = 5). 1 is perfect.
double tile_score(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order, int k = 5);

// The Kaggle layout score: Kendall tau-b between each config's predicted position and its runtime,
// oriented so that 1 means the predicted order sorts the runtimes ascending. `predicted_order` must
// be a permutation of [0, n) (InputError otherwise). NaN for n < 2 or constant runtimes.
double layout_kendall_tau(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order);

// Of the config pairs with different runtimes, the fraction the predicted order puts faster-first.
// `predicted_order` must be a permutation (InputError otherwise). NaN when no pair differs.
double ordered_pair_accuracy(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order);

}  // namespace graphcost
