// LayoutInference (shared work once, per-config increments) computes what CostModel::forward
// computes: on generated and real layout graphs, whole and pruned, with 0 to 3 layers, any thread
// count, with configs read as they are or relative to the most common one, and it recomputes fewer
// rows than the view holds.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "common/internal_error.h"
#include "data/dataset_survey.h"
#include "data/node_features.h"
#include "model/cost_model.h"
#include "model/layout_inference.h"
#include "test_support.h"

using namespace graphcost;

namespace {

// Costs of `configs` through the differentiable forward pass, the reference.
std::vector<float> forward_costs(CostModel& model, const PreparedGraph& prepared, const std::vector<int32_t>& configs) {
  std::vector<float> costs;
  for (size_t start = 0; start < configs.size(); start += 16) {
    const std::vector<int32_t> chunk(configs.begin() + static_cast<std::ptrdiff_t>(start),
                                     configs.begin() + static_cast<std::ptrdiff_t>(std::min(configs.size(), start + 16)));
    nn::Tape tape;
    const nn::Var out = model.forward(tape, prepared, chunk);
    for (Eigen::Index i = 0; i < out.rows(); ++i) costs.push_back(out.value()(i, 0));
  }
  return costs;
}

void check_same(const std::vector<float>& expected, const std::vector<float>& actual) {
  REQUIRE(expected.size() == actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("config " << i);
    REQUIRE(std::isfinite(actual[i]));
    REQUIRE(std::abs(expected[i] - actual[i]) <= 1e-4f * (1.0f + std::abs(expected[i])));
  }
}

ModelConfig layout_config(int layers, int hops, uint64_t seed) {
  ModelConfig config;
  config.kind = GraphKind::Layout;
  config.collection = "layout:xla:random";
  config.opcode_embedding = 8;
  config.hidden = 24;
  config.layers = layers;
  config.hops = hops;
  config.seed = seed;
  return config;
}

}  // namespace

TEST_CASE("incremental layout inference equals the full forward pass on generated graphs", "[model][inference]") {
  const std::string tree = testing::generate_tree("layout_inference_generated", "layout:xla:default", 2, 21, 400, 30);
  for (const std::string& path : find_npz_files(tree)) {
    const TpuGraph graph = load_tpu_graph(path);
    const FeatureStatistics statistics = fit_feature_statistics({&graph});
    for (int layers : {0, 1, 3}) {
      for (int hops : {-1, 1}) {
        for (bool relative : {false, true}) {
          for (nn::Aggregation aggregation : {nn::Aggregation::Mean, nn::Aggregation::Max, nn::Aggregation::Sum}) {
            INFO(path << " layers " << layers << " hops " << hops << " relative configs " << relative << " aggregation "
                      << name_of(aggregation_names(), aggregation));
            ModelConfig config = layout_config(layers, hops, 3 + static_cast<uint64_t>(layers));
            config.relative_configs = relative;
            config.aggregation = aggregation;
            CostModel model(config, statistics);
            const PreparedGraph prepared = model.prepare(graph);
            std::vector<int32_t> configs(static_cast<size_t>(graph.config_count));
            std::iota(configs.begin(), configs.end(), 0);
            const LayoutInference inference(model, prepared);
            const std::vector<float> expected = forward_costs(model, prepared, configs);
            check_same(expected, inference.predict(configs, 1));
            check_same(expected, inference.predict(configs, 2));
            check_same(expected, model.predict(prepared));
            if (layers > 0) CHECK(inference.mean_recomputed_rows().back() <= inference.view_rows());
            // Relative models add the "changed" row for nodes changed from their usual row.
            if (relative) CHECK(prepared.usual_values.size() == graph.configurable_nodes.size() * kLayoutConfigFeatureCount);
          }
        }
      }
    }
  }
}

TEST_CASE("incremental layout inference equals the full forward pass on a real graph", "[model][inference][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph graph = load_tpu_graph(testing::real_file("npz/layout/xla/random/valid/unet_3d.4x4.bf16.npz"));
  CostModel model(layout_config(2, 1, 9), fit_feature_statistics({&graph}));
  const PreparedGraph prepared = model.prepare(graph);
  std::vector<int32_t> configs;
  for (int32_t c = 0; c < graph.config_count; c += 16) configs.push_back(c);  // 31 of 481, any order
  std::reverse(configs.begin(), configs.end());
  const LayoutInference inference(model, prepared);
  check_same(forward_costs(model, prepared, configs), inference.predict(configs, 2));
  // Progress is reported and can stop the work: the rest stays NaN.
  size_t calls = 0;
  const std::vector<float> stopped = inference.predict(configs, 1, [&](size_t done, size_t) {
    ++calls;
    return done < 3;
  });
  CHECK(calls >= 1);
  CHECK(std::isnan(stopped.back()));
  CHECK_THROWS_AS(inference.predict({graph.config_count}), InternalError);
}

TEST_CASE("configs given by value predict like the listed configs they copy, and edits change the cost", "[model][inference]") {
  const std::string tree = testing::generate_tree("layout_inference_values", "layout:xla:random", 1, 23, 400, 20);
  const TpuGraph graph = load_tpu_graph(find_npz_files(tree).front());
  CostModel model(layout_config(2, 1, 7), fit_feature_statistics({&graph}));
  const PreparedGraph prepared = model.prepare(graph);
  const LayoutInference inference(model, prepared);
  const size_t width = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  const std::vector<int8_t> values(graph.layout_config_features.begin(),
                                   graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(3 * width));
  check_same(inference.predict({0, 1, 2}, 1), inference.predict_values(values));
  // The base config itself, and config 0 with one node's values changed (a what-if edit).
  REQUIRE(inference.base_values().size() == width);
  std::vector<int8_t> edited(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(width));
  edited[0] = static_cast<int8_t>(edited[0] == 0 ? 1 : 0);
  const std::vector<float> costs = inference.predict_values(edited);
  CHECK(costs[0] != Approx(inference.predict({0}, 1)[0]).margin(1e-7));
  CHECK_THROWS_AS(inference.predict_values(std::vector<int8_t>(width + 1, 0)), InternalError);
  CHECK_THROWS_AS(inference.predict_values(std::vector<int8_t>(width, 6)), InternalError);
}
