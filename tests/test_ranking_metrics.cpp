#include <catch2/catch.hpp>

#include <cmath>

#include "metrics/ranking_metrics.h"

using namespace graphcost;

TEST_CASE("tile score, top-K error and slowdown on a hand-made case", "[metrics]") {
  // Runtimes of configs 0..6; the best is config 4 (1.0).
  const std::vector<double> y = {3.0, 2.0, 5.0, 4.0, 1.0, 2.5, 6.0};
  const std::vector<int32_t> order = {2, 1, 6, 0, 3, 4, 5};  // best config at position 6 (1-based)
  CHECK(slowdown_at_k(y, order, 1) == Approx(5.0));
  CHECK(slowdown_at_k(y, order, 5) == Approx(2.0));  // best of {5, 2, 6, 3, 4} = 2
  CHECK(top_k_error(y, order, 5) == Approx(1.0));
  CHECK(tile_score(y, order) == Approx(0.0));         // 2 - 2/1
  CHECK(slowdown_at_k(y, order, 10) == Approx(1.0));  // all listed
  CHECK(tile_score(y, {4}) == Approx(1.0));           // one index, the best
  CHECK(top_k_error(y, {4, 0}, 1) == Approx(0.0));
}

TEST_CASE("layout tau and pair accuracy on hand-made cases", "[metrics]") {
  const std::vector<double> runtimes = {30, 10, 20};
  CHECK(layout_kendall_tau(runtimes, {1, 2, 0}) == Approx(1.0));   // fastest first
  CHECK(layout_kendall_tau(runtimes, {0, 2, 1}) == Approx(-1.0));  // slowest first
  // Order 1, 0, 2: positions 1->0, 0->1, 2->2; pairs: (1,0) ok, (1,2) ok, (0,2) wrong: P=2, Q=1.
  CHECK(layout_kendall_tau(runtimes, {1, 0, 2}) == Approx(1.0 / 3.0));
  CHECK(ordered_pair_accuracy(runtimes, {1, 0, 2}) == Approx(2.0 / 3.0));
  // Tied runtimes: pairs with equal runtimes are not comparable.
  CHECK(ordered_pair_accuracy({5, 5, 1}, {2, 0, 1}) == Approx(1.0));
  CHECK(std::isnan(ordered_pair_accuracy({5, 5}, {0, 1})));
  CHECK(std::isnan(layout_kendall_tau({5, 5, 5}, {0, 1, 2})));
}
