// A layout batch computed over its distinct rows (model/distinct_rows.h) equals the full batch:
// the plan's row counts on a hand-made graph, then CostModel::node_sums against the pooled
// node_states in values and every parameter's gradient, on generated and real layout graphs.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "data/dataset_survey.h"
#include "data/node_features.h"
#include "model/cost_model.h"
#include "model/distinct_rows.h"
#include "nn/ops.h"
#include "nn/reference_ops.h"
#include "test_support.h"

using namespace graphcost;

namespace {

// The sum of every parameter's gradient magnitude and the outputs of one batch, through the
// distinct rows (node_sums) or all rows (node_states pooled).
struct Pass {
  nn::Matrix costs;
  std::vector<nn::Matrix> grads;
};

Pass run(CostModel& model, const PreparedGraph& prepared, const std::vector<int32_t>& configs, bool distinct) {
  for (nn::Parameter* p : model.parameters()) p->zero_grad();
  nn::Tape tape;
  const nn::Var sums = distinct ? model.node_sums(tape, prepared, configs)
                                : nn::segment_pool(model.node_states(tape, prepared, configs), prepared.view.size(), nn::Pool::Sum);
  const nn::Var costs = model.head(tape, sums, prepared.view.size());
  // A weighted sum of the costs, weights in [1, 2): every config's rows push the gradients the same
  // way. (A ranking loss's gradients nearly cancel over configs; summed over 45,600 rows in float,
  // what is left of them is mostly rounding.)
  nn::Matrix weights(costs.rows(), 1);
  for (Eigen::Index i = 0; i < weights.rows(); ++i) weights(i, 0) = 1.0f + static_cast<float>((i * 7) % 10) / 10.0f;
  tape.backward(nn::reference::sum_all(nn::mul(costs, tape.constant(weights))));
  Pass pass{costs.value(), {}};
  for (nn::Parameter* p : model.parameters()) pass.grads.push_back(p->grad);
  return pass;
}

void check_equal_passes(CostModel& model, const PreparedGraph& prepared, const std::vector<int32_t>& configs) {
  const Pass all = run(model, prepared, configs, false);
  const Pass distinct = run(model, prepared, configs, true);
  REQUIRE(all.costs.rows() == static_cast<Eigen::Index>(configs.size()));
  for (Eigen::Index i = 0; i < all.costs.rows(); ++i) {
    INFO("config " << i);
    CHECK(std::isfinite(distinct.costs(i, 0)));
    CHECK(std::fabs(all.costs(i, 0) - distinct.costs(i, 0)) <= 1e-4f * (1.0f + std::fabs(all.costs(i, 0))));
  }
  const std::vector<nn::Parameter*> parameters = model.parameters();
  for (size_t k = 0; k < parameters.size(); ++k) {
    INFO(parameters[k]->name);
    const float scale = 1.0f + all.grads[k].cwiseAbs().maxCoeff();
    CHECK((all.grads[k] - distinct.grads[k]).cwiseAbs().maxCoeff() <= 1e-4f * scale);
  }
}

ModelConfig layout_config(int layers, int hops, bool relative) {
  ModelConfig config;
  config.kind = GraphKind::Layout;
  config.collection = "layout:xla:random";
  config.opcode_embedding = 4;
  config.hidden = 16;
  config.layers = layers;
  config.hops = hops;
  config.relative_configs = relative;
  config.seed = 3;
  return config;
}

}  // namespace

TEST_CASE("distinct rows: configs share a node's row until a differing value reaches it", "[model]") {
  // A path 0 -> 1 -> 2 -> 3, node 0 configurable (2 values a node here).
  GraphView view;
  view.nodes = {0, 1, 2, 3};
  view.producers = {4, {0, 0, 1, 2, 3}, {0, 1, 2}};
  view.consumers = {4, {0, 1, 2, 3, 3}, {1, 2, 3}};
  view.configurable = {0};
  SECTION("two configs with different values: the difference moves one node a layer") {
    const DistinctRows plan = plan_distinct_rows(view, {{1, 2}, {1, 3}}, 2, 2);
    CHECK(plan.input_nodes == std::vector<int32_t>{0, 0, 1, 2, 3});
    REQUIRE(plan.config_parts.size() == 2);
    CHECK(plan.config_parts[0].row == 0);
    CHECK(plan.config_parts[1].row == 1);
    CHECK(plan.config_parts[1].config == 1);
    REQUIRE(plan.layers.size() == 2);
    CHECK(plan.layers[0]->self.size() == 6);  // nodes 0 and 1 differ
    CHECK(plan.layers[1]->self.size() == 7);  // and node 2
    // Node 1's two rows read node 0's row of their own config.
    CHECK(plan.layers[0]->producers.neighbours == std::vector<int32_t>{0, 1, 2, 3});
    CHECK(plan.final_rows == std::vector<int32_t>{0, 2, 4, 6, 1, 3, 5, 6});
  }
  SECTION("equal configs share every row") {
    const DistinctRows plan = plan_distinct_rows(view, {{4, 5}, {4, 5}, {4, 5}}, 2, 3);
    CHECK(plan.input_nodes.size() == 4);
    for (const auto& layer : plan.layers) CHECK(layer->self.size() == 4);
    CHECK(plan.final_rows == std::vector<int32_t>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});
  }
}

TEST_CASE("a deduplicated batch equals the full one on generated layout graphs", "[model]") {
  const TpuGraph graph =
      load_tpu_graph(find_npz_files(testing::generate_tree("distinct_rows", "layout:xla:random", 1, 8, 300, 40)).front());
  const int layers = GENERATE(0, 1, 3);
  const int hops = GENERATE(-1, 1);
  const bool relative = GENERATE(false, true);
  const nn::Aggregation aggregation = GENERATE(nn::Aggregation::Mean, nn::Aggregation::Max, nn::Aggregation::Sum);
  INFO(layers << " layers, hops " << hops << ", relative " << relative << ", aggregation " << name_of(aggregation_names(), aggregation));
  ModelConfig config = layout_config(layers, hops, relative);
  config.aggregation = aggregation;
  CostModel model(config, fit_feature_statistics({&graph}));
  const PreparedGraph prepared = model.prepare(graph);
  // Repeated configs (their rows are all shared) and distinct ones.
  check_equal_passes(model, prepared, {0, 3, 3, 7, 11, 0, 19});
}

TEST_CASE("configs from a compiler-like search share most rows, and still compute the full batch", "[model]") {
  // layout:xla:default configs are hill-climbing steps: each differs from its neighbours in a few
  // nodes, so a batch shares most rows, but not all.
  const TpuGraph graph =
      load_tpu_graph(find_npz_files(testing::generate_tree("distinct_rows_default", "layout:xla:default", 1, 8, 300, 40)).front());
  CostModel model(layout_config(2, 1, false), fit_feature_statistics({&graph}));
  const PreparedGraph prepared = model.prepare(graph);
  std::vector<int32_t> configs(16);
  std::iota(configs.begin(), configs.end(), 0);
  const DistinctRows plan = model.distinct_rows(prepared, configs);
  const size_t nodes = static_cast<size_t>(prepared.view.size()), rows = configs.size() * nodes;
  std::vector<size_t> distinct = {plan.input_nodes.size()};
  for (const auto& layer : plan.layers) distinct.push_back(layer->self.size());
  INFO("view " << nodes << " nodes, " << rows << " rows; distinct " << distinct[0] << ", " << distinct[1] << ", " << distinct[2]);
  CHECK(distinct[0] > nodes);         // some configs differ...
  CHECK(distinct[2] < rows / 2);      // ...but share most rows
  CHECK(distinct[0] <= distinct[1]);  // a difference only spreads
  CHECK(distinct[1] <= distinct[2]);
  check_equal_passes(model, prepared, configs);
}

TEST_CASE("a deduplicated batch equals the full one on a real nlp graph, with fewer rows", "[model][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph graph = load_tpu_graph(testing::real_file("npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz"));
  ModelConfig config = layout_config(2, 1, false);
  config.collection = "layout:nlp:default";
  CostModel model(config, fit_feature_statistics({&graph}));
  const PreparedGraph prepared = model.prepare(graph);
  std::vector<int32_t> configs(16);
  std::iota(configs.begin(), configs.end(), 100);
  check_equal_passes(model, prepared, configs);
  // The shared rows: fewer distinct rows than the batch's rows at every layer.
  const DistinctRows plan = model.distinct_rows(prepared, configs);
  const size_t rows = configs.size() * static_cast<size_t>(prepared.view.size());
  INFO("view " << prepared.view.size() << " nodes, " << rows << " rows; distinct " << plan.input_nodes.size() << ", "
               << plan.layers[0]->self.size() << ", " << plan.layers[1]->self.size());
  CHECK(plan.layers[1]->self.size() * 2 < rows);
}
