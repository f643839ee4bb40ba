// The baselines of docs/experiments.md: ridge on one-hot config values recovers runtimes that are a
// per-node function of the layout values; the layout change count (fewest-changes) is 0 for the
// most common config and counts changed nodes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "data/dataset_survey.h"
#include "scoring/baseline_order.h"
#include "test_support.h"
#include "train/ridge_ranker.h"

using namespace graphcost;

namespace {

TpuGraph generated_layout_graph(const std::string& folder) {
  return load_tpu_graph(find_npz_files(testing::generate_tree(folder, "layout:xla:random", 1, 31, 300, 120)).front());
}

}  // namespace

TEST_CASE("ridge on one-hot config values recovers a per-node linear runtime", "[baselines]") {
  TpuGraph graph = generated_layout_graph("baselines_ridge");
  REQUIRE(graph.configurable_count() > 0);
  // Runtime = exp of a sum of per-(node, column, value) effects, exactly what ridge can represent;
  // a few nodes carry them, so 100 configs are enough to learn them.
  for (int32_t c = 0; c < graph.config_count; ++c) {
    double log_runtime = 10;
    for (int32_t slot = 0; slot < std::min(3, graph.configurable_count()); ++slot) {
      for (int k = 0; k < 6; ++k) log_runtime += 0.3 * std::sin(1.0 + slot * 3.1 + k * 0.7 + graph.layout_value(c, slot, k) * 1.3);
    }
    graph.config_runtime_ns[static_cast<size_t>(c)] = static_cast<int64_t>(std::exp(log_runtime) * 1000);
  }
  std::vector<int32_t> fit(100), test(static_cast<size_t>(graph.config_count - 100));
  std::iota(fit.begin(), fit.end(), 0);
  std::iota(test.begin(), test.end(), 100);
  RidgeRanker ridge(ConfigEncoding::PerNode);
  ridge.fit({{&graph, fit}});
  INFO("penalty " << ridge.penalty());
  // It fits what it saw almost exactly, and ranks unseen configs better than chance (numpy's ridge
  // on the same features and split gives 0.38: the other nodes' one-hots are spurious regressors).
  CHECK(ranking_metric(graph, fit, ridge.predict(graph, fit)) > 0.95);
  CHECK(ranking_metric(graph, test, ridge.predict(graph, test)) > 0.3);
  // The histogram encoding has one feature set for any program; per node needs one program.
  RidgeRanker histogram(ConfigEncoding::Histogram);
  histogram.fit({{&graph, fit}});
  CHECK(histogram.predict(graph, test).size() == test.size());
}

TEST_CASE("ridge per node also learns a node's whole layout row as one choice", "[baselines]") {
  TpuGraph graph = generated_layout_graph("baselines_ridge_rows");
  REQUIRE(graph.configurable_count() > 0);
  // Node 0 takes one of four rows, its first two values each 0 or 1, the other nodes config 0's
  // rows; a config is slow when the two values agree. No sum of per-value effects can tell (0,0)
  // and (1,1) from (0,1) and (1,0): the row as a category can.
  const size_t width = static_cast<size_t>(graph.configurable_count()) * 18;
  for (int32_t c = 0; c < graph.config_count; ++c) {
    const int a = c % 2, b = (c / 2) % 2;
    int8_t* row = &graph.layout_config_features[static_cast<size_t>(c) * width];
    std::copy(graph.layout_config_features.begin(), graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(width), row);
    std::fill(row, row + 18, int8_t{-1});
    row[0] = static_cast<int8_t>(a);
    row[1] = static_cast<int8_t>(b);
    graph.config_runtime_ns[static_cast<size_t>(c)] = a == b ? 2000000 : 1000000;
  }
  std::vector<int32_t> fit(60), test(static_cast<size_t>(graph.config_count - 60));
  std::iota(fit.begin(), fit.end(), 0);
  std::iota(test.begin(), test.end(), 60);
  RidgeRanker ridge(ConfigEncoding::PerNode);
  ridge.fit({{&graph, fit}});
  INFO("penalty " << ridge.penalty());
  const std::vector<float> cost = ridge.predict(graph, test);
  float slowest_fast = -INFINITY, fastest_slow = INFINITY;
  for (size_t i = 0; i < test.size(); ++i) {
    const bool slow = graph.config_runtime_ns[static_cast<size_t>(test[i])] == 2000000;
    (slow ? fastest_slow : slowest_fast) = slow ? std::min(fastest_slow, cost[i]) : std::max(slowest_fast, cost[i]);
  }
  CHECK(fastest_slow > slowest_fast);  // every slow config ranked after every fast one
}

TEST_CASE("fewest layout changes counts nodes away from their most common values", "[baselines]") {
  TpuGraph graph = generated_layout_graph("baselines_changes");
  const int32_t nodes = graph.configurable_count();
  REQUIRE(nodes >= 2);
  // Make config 0 the mode everywhere (copy it into most configs), then change 2 nodes of config 1.
  const size_t width = static_cast<size_t>(nodes) * 18;
  for (int32_t c = 1; c < graph.config_count; ++c) {
    if (c % 4 != 0)
      std::copy_n(graph.layout_config_features.begin(), width,
                  graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(c * width));
  }
  for (int32_t slot : {0, nodes - 1}) {
    int8_t& value = graph.layout_config_features[width + static_cast<size_t>(slot) * 18];
    value = static_cast<int8_t>(value == 5 ? 4 : value + 1);
  }
  const std::vector<float> counts = layout_change_counts(graph, {0, 1, 2});
  CHECK(counts == std::vector<float>{0, 2, 0});
  const std::vector<int32_t> order = baseline_order(graph, BaselineStrategy::FewestChanges, 0);
  CHECK(std::find(order.begin(), order.end(), 0) < std::find(order.begin(), order.end(), 1));
}
