// Explanations and the greedy search: occlusion and compare contributions are the cost changes they
// claim (checked against direct predictions), and the search returns a config whose recomputed cost
// is what it reports and no worse than where it started.
#include <catch2/catch.hpp>

#include <numeric>

#include "data/dataset_survey.h"
#include "data/node_features.h"
#include "model/config_explainer.h"
#include "test_support.h"

using namespace graphcost;

namespace {

struct Fixture {
  TpuGraph graph;
  std::unique_ptr<CostModel> model;
  PreparedGraph prepared;
  std::unique_ptr<LayoutInference> inference;

  explicit Fixture(const std::string& name) {
    graph = load_tpu_graph(find_npz_files(testing::generate_tree(name, "layout:xla:random", 1, 41, 500, 40)).front());
    ModelConfig config;
    config.kind = GraphKind::Layout;
    config.collection = "layout:xla:random";
    config.hidden = 16;
    config.opcode_embedding = 4;
    config.seed = 3;
    model = std::make_unique<CostModel>(config, fit_feature_statistics({&graph}));
    prepared = model->prepare(graph);
    inference = std::make_unique<LayoutInference>(*model, prepared);
  }
};

}  // namespace

TEST_CASE("occlusion and compare contributions are the cost changes of single-node edits", "[model][explain]") {
  Fixture f("explain_contributions");
  const std::vector<int8_t> a = layout_config_values(f.graph, 1), b = layout_config_values(f.graph, 2);
  ContributionJob occlusion(*f.inference, a);
  while (!occlusion.step(3)) {
  }
  const NodeContributions o = occlusion.result();
  REQUIRE(!o.slots.empty());
  CHECK(o.reference_cost == Approx(f.inference->predict({1}, 1)[0]).margin(1e-5));
  // Recompute one slot's contribution directly.
  std::vector<int8_t> reset = a;
  const size_t slot = static_cast<size_t>(o.slots.front());
  std::copy(f.inference->base_values().begin() + static_cast<std::ptrdiff_t>(slot * kLayoutConfigFeatureCount),
            f.inference->base_values().begin() + static_cast<std::ptrdiff_t>((slot + 1) * kLayoutConfigFeatureCount),
            reset.begin() + static_cast<std::ptrdiff_t>(slot * kLayoutConfigFeatureCount));
  CHECK(o.contribution.front() == Approx(o.reference_cost - f.inference->predict_values(reset)[0]).margin(1e-5));

  ContributionJob compare(*f.inference, a, b);
  while (!compare.step(1000)) {
  }
  const NodeContributions c = compare.result();
  CHECK(c.other_cost == Approx(f.inference->predict({2}, 1)[0]).margin(1e-5));
  for (int32_t s : c.slots) {
    CHECK_FALSE(std::equal(a.begin() + s * kLayoutConfigFeatureCount, a.begin() + (s + 1) * kLayoutConfigFeatureCount,
                           b.begin() + s * kLayoutConfigFeatureCount));
  }
}

TEST_CASE("greedy search reports a config it really predicts, no worse than its start", "[model][explain]") {
  Fixture f("explain_search");
  const std::vector<float> costs = f.inference->predict(
      [&] {
        std::vector<int32_t> all(static_cast<size_t>(f.graph.config_count));
        std::iota(all.begin(), all.end(), 0);
        return all;
      }(),
      1);
  const int32_t best_listed = static_cast<int32_t>(std::min_element(costs.begin(), costs.end()) - costs.begin());
  GreedyLayoutSearch search(*f.inference, f.graph, layout_config_values(f.graph, best_listed));
  int steps = 0;
  while (!search.step(16)) ++steps;
  CHECK(search.start_cost() == Approx(costs[static_cast<size_t>(best_listed)]).margin(1e-5));
  CHECK(search.best_cost() <= search.start_cost());
  CHECK(f.inference->predict_values(search.best())[0] == Approx(search.best_cost()).margin(1e-5));
  INFO("rounds " << search.rounds() << ", start " << search.start_cost() << ", best " << search.best_cost());
  CHECK(search.rounds() >= 1);
  if (search.best_cost() < search.start_cost()) CHECK(search.changed_nodes() >= 1);
}
