#include "metrics/ranking_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "common/input_error.h"
#include "metrics/kendall_tau.h"

namespace graphcost {

namespace {
template <typename Cost>
std::vector<int32_t> stable_order(const std::vector<Cost>& costs) {
  std::vector<int32_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return costs[static_cast<size_t>(a)] < costs[static_cast<size_t>(b)]; });
  return order;
}
}  // namespace

std::vector<int32_t> order_by_cost(const std::vector<float>& costs) { return stable_order(costs); }
std::vector<int32_t> order_by_cost(const std::vector<double>& costs) { return stable_order(costs); }
namespace {

// InputError unless every config of `order` indexes `configs` runtimes.
void check_order(const std::vector<int32_t>& order, size_t configs) {
  for (const int32_t c : order) {
    if (c < 0 || static_cast<size_t>(c) >= configs)
      throw InputError("", "order", "config indices in [0, " + std::to_string(configs) + ")", std::to_string(c));
  }
}

// InputError unless there are runtimes and each is a positive finite number of seconds.
void check_runtimes(const std::vector<double>& runtimes) {
  if (runtimes.empty()) throw InputError("", "runtimes", "at least one runtime", "none");
  for (size_t i = 0; i < runtimes.size(); ++i) {
    if (!(std::isfinite(runtimes[i]) && runtimes[i] > 0))
      throw InputError("", "runtimes", "positive finite runtimes", "runtimes[" + std::to_string(i) + "] = " + std::to_string(runtimes[i]));
  }
}

// A ranking of every config: as many configs as runtimes, each once.
void check_whole_order(const std::vector<double>& runtimes, const std::vector<int32_t>& order) {
  if (order.size() != runtimes.size())
    throw InputError("", "order", std::to_string(runtimes.size()) + " configs (one per runtime)", std::to_string(order.size()));
  check_order(order, runtimes.size());
  std::vector<bool> seen(order.size(), false);
  for (const int32_t c : order) {
    if (seen[static_cast<size_t>(c)]) throw InputError("", "order", "each config once", "config " + std::to_string(c) + " twice");
    seen[static_cast<size_t>(c)] = true;
  }
}

// position[config] = index of `config` in predicted_order (as double, for kendall_counts).
std::vector<double> predicted_positions(const std::vector<int32_t>& predicted_order) {
  std::vector<double> position(predicted_order.size());
  for (size_t rank = 0; rank < predicted_order.size(); ++rank)
    position[static_cast<size_t>(predicted_order[rank])] = static_cast<double>(rank);
  return position;
}

}  // namespace

double slowdown_at_k(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order, int k) {
  check_runtimes(runtimes);
  if (predicted_order.empty()) throw InputError("", "order", "at least one config index", "none");
  check_order(predicted_order, runtimes.size());
  if (k < 1) throw InputError("", "k", "1 or more configs", std::to_string(k));
  const double best = *std::min_element(runtimes.begin(), runtimes.end());
  double best_predicted = std::numeric_limits<double>::infinity();
  const size_t considered = std::min(predicted_order.size(), static_cast<size_t>(k));
  for (size_t i = 0; i < considered; ++i) best_predicted = std::min(best_predicted, runtimes[static_cast<size_t>(predicted_order[i])]);
  return best_predicted / best;
}

double top_k_error(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order, int k) {
  return slowdown_at_k(runtimes, predicted_order, k) - 1.0;
}

double tile_score(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order, int k) {
  return 2.0 - slowdown_at_k(runtimes, predicted_order, k);
}

double layout_kendall_tau(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order) {
  check_whole_order(runtimes, predicted_order);
  const std::vector<double> position = predicted_positions(predicted_order);
  return kendall_tau_b(position.data(), runtimes.data(), runtimes.size());
}

double ordered_pair_accuracy(const std::vector<double>& runtimes, const std::vector<int32_t>& predicted_order) {
  check_whole_order(runtimes, predicted_order);
  const std::vector<double> position = predicted_positions(predicted_order);
  const KendallCounts c = kendall_counts(position.data(), runtimes.data(), runtimes.size());
  // Positions have no ties, so every pair with different runtimes is concordant or discordant.
  const int64_t comparable = c.total_pairs - c.y_ties;
  if (c.has_nan || comparable == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(comparable - c.discordant) / static_cast<double>(comparable);
}

}  // namespace graphcost
