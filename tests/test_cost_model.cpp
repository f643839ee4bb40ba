// The GNN cost model: it overfits one graph's configs (tau near 1), gradients of the whole model
// match finite differences, model files round-trip exactly and refuse malformed metadata, and the
// runtime calibration recovers a known cost-to-runtime law.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <numeric>

#include "common/input_error.h"
#include "data/dataset_survey.h"
#include "io/npz_file.h"
#include "metrics/ranking_metrics.h"
#include "model/cost_model.h"
#include "nn/ops.h"
#include "nn/optimizer.h"
#include "test_support.h"
#include "train/trainer.h"

using namespace graphcost;

namespace {

ModelConfig small_config(const std::string& kind) {
  ModelConfig config;
  config.kind = kind == "tile" ? GraphKind::Tile : GraphKind::Layout;
  config.collection = kind == "tile" ? "tile:xla" : "layout:xla:random";
  config.opcode_embedding = 4;
  config.hidden = 16;
  config.layers = 1;
  config.seed = 5;
  return config;
}

// A small generated layout graph (labelled, from the train split).
TpuGraph small_layout_graph(const std::string& folder) {
  return load_tpu_graph(find_npz_files(testing::generate_tree(folder, "layout:xla:random", 1, 8, 300, 40)).front());
}

std::vector<double> runtimes_of(const TpuGraph& graph) {
  return std::vector<double>(graph.config_runtime_ns.begin(), graph.config_runtime_ns.end());
}

double tau_of(CostModel& model, const TpuGraph& graph) {
  const std::vector<float> cost = model.predict(model.prepare(graph));
  std::vector<int32_t> order(cost.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return cost[static_cast<size_t>(a)] < cost[static_cast<size_t>(b)]; });
  return layout_kendall_tau(runtimes_of(graph), order);
}

// Copies model file `from` to `to` with its model_json changed by `edit`.
void rewrite_model_json(const std::string& from, const std::string& to, const std::function<void(nlohmann::json&)>& edit) {
  NpzFile npz = read_npz_file(from);
  for (auto& [name, array] : npz.arrays) {
    if (name != "model_json") continue;
    const std::vector<uint8_t> bytes = array.to_vector<uint8_t>("", "");
    nlohmann::json meta = nlohmann::json::parse(bytes.begin(), bytes.end());
    edit(meta);
    const std::string text = meta.dump();
    array = NpyArray::from_values<uint8_t>({static_cast<int64_t>(text.size())}, std::vector<uint8_t>(text.begin(), text.end()));
  }
  std::vector<std::pair<std::string, const NpyArray*>> named;
  for (const auto& [name, array] : npz.arrays) named.emplace_back(name, &array);
  write_npz(to, named, ZipCompression::Deflate);
}

}  // namespace

TEST_CASE("the model overfits one graph's configs", "[model][training]") {
  const TpuGraph graph = small_layout_graph("model_overfit");
  CostModel model(small_config("layout"), fit_feature_statistics({&graph}));
  const PreparedGraph prepared = model.prepare(graph);
  std::vector<int32_t> all(static_cast<size_t>(graph.config_count));
  std::iota(all.begin(), all.end(), 0);
  const std::vector<double> runtimes = runtimes_of(graph);
  const double before = tau_of(model, graph);
  nn::Adam adam(model.parameters(), nn::AdamOptions{5e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f});
  // Under ASan+UBSan (10x slower) the same code runs 40 steps and must only improve: the memory
  // checks need the code paths, the release build checks the fit.
  const int steps = testing::sanitized_build() ? 40 : 150;
  for (int step = 0; step < steps; ++step) {
    nn::Tape tape;
    tape.backward(nn::listmle_loss(model.forward(tape, prepared, all), runtimes));
    adam.step();
  }
  const double after = tau_of(model, graph);
  INFO("tau before " << before << ", after " << after << " (" << steps << " steps)");
  if (!testing::sanitized_build()) CHECK(after > 0.85);
  CHECK(after > before);
}

TEST_CASE("whole-model gradients match finite differences", "[model]") {
  const int variant = GENERATE(0, 1, 2);
  const bool attention = variant == 1, relative = variant == 2;
  INFO("cross-config attention " << attention << ", relative configs " << relative);
  const TpuGraph graph = small_layout_graph(attention  ? "model_gradients_attention"
                                            : relative ? "model_gradients_relative"
                                                       : "model_gradients");
  ModelConfig config = small_config("layout");
  config.cross_config_attention = attention;
  config.relative_configs = relative;
  CostModel model(config, fit_feature_statistics({&graph}));
  const PreparedGraph prepared = model.prepare(graph);
  const std::vector<int32_t> configs = {0, 3, 7, 11};
  std::vector<double> runtimes;
  for (int32_t c : configs) runtimes.push_back(static_cast<double>(graph.config_runtime_ns[static_cast<size_t>(c)]));
  auto loss_value = [&]() {
    nn::Tape tape;
    return static_cast<double>(nn::listmle_loss(model.forward(tape, prepared, configs), runtimes).value()(0, 0));
  };
  for (nn::Parameter* p : model.parameters()) p->zero_grad();
  {
    nn::Tape tape;
    tape.backward(nn::listmle_loss(model.forward(tape, prepared, configs), runtimes));
  }
  for (nn::Parameter* p : model.parameters()) {
    if (p->name != "out.weight" && p->name != "layout_value_embedding" && p->name != "sage0.producers" && p->name != "input.bias" &&
        p->name != "sage0.attention.weight" && p->name != "sage0.attention.inverse_temperature") {
      continue;
    }
    std::vector<Eigen::Index> checked;
    for (Eigen::Index i = 0; i < std::min<Eigen::Index>(p->value.size(), 12); ++i) checked.push_back(i);
    // Relative configs: the "changed" row, the embedding's last.
    if (relative && p->name == "layout_value_embedding")
      for (Eigen::Index i = p->value.size() - p->value.cols(); i < p->value.size(); ++i) checked.push_back(i);
    for (Eigen::Index i : checked) {
      const float original = p->value.data()[i];
      const float step = attention || relative ? 2e-3f : 1e-2f;
      p->value.data()[i] = original + step;
      const double up = loss_value();
      p->value.data()[i] = original - step;
      const double down = loss_value();
      p->value.data()[i] = original;
      const double numeric = (up - down) / (2 * step), analytic = p->grad.data()[i];
      INFO(p->name << "[" << i << "] analytic " << analytic << " numeric " << numeric);
      CHECK(std::fabs(analytic - numeric) <= 5e-3 * std::max({1.0, std::fabs(analytic), std::fabs(numeric)}));
    }
  }
}

TEST_CASE("model files round-trip exactly and refuse bad metadata", "[model]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph graph = small_layout_graph("model_files");
  CostModel model(small_config("layout"), fit_feature_statistics({&graph}));
  const std::string dir = testing::scratch_dir("model_file");
  model.save(dir + "/model.npz");
  CostModel loaded = CostModel::load(dir + "/model.npz");
  CHECK(loaded.parameter_count() == model.parameter_count());
  CHECK(loaded.predict(loaded.prepare(graph)) == model.predict(model.prepare(graph)));
  CHECK(loaded.config().to_json() == model.config().to_json());

  // A model file whose JSON claims another format version is refused, naming the field.
  rewrite_model_json(dir + "/model.npz", dir + "/future.npz", [](nlohmann::json& meta) { meta["version"] = 99; });
  CHECK_THROWS_WITH(CostModel::load(dir + "/future.npz"),
                    Catch::Contains("future.npz") && Catch::Contains("model_json.version") && Catch::Contains("99"));
  CHECK_THROWS_AS(CostModel::load(testing::real_file("npz/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz")), InputError);

  // A tiny file whose JSON asks for a huge model is refused before anything is allocated.
  nlohmann::json huge = {
      {"format", "graphcost-model"},
      {"version", 1},
      {"config", {{"kind", "layout"}, {"opcode_embedding", 16}, {"config_embedding", 4}, {"hidden", 4096}, {"layers", 64}, {"hops", 1}}},
      {"feature_statistics", model.statistics().to_json()}};
  const std::string text = huge.dump();
  const NpyArray meta = NpyArray::from_values<uint8_t>({static_cast<int64_t>(text.size())}, std::vector<uint8_t>(text.begin(), text.end()));
  write_npz(dir + "/huge.npz", {{"model_json", &meta}}, ZipCompression::Deflate);
  const testing::ChildResult child = testing::run_in_child(100ull << 20, [&](std::string& out) {
    try {
      CostModel::load(dir + "/huge.npz");
    } catch (const InputError& error) {
      out = error.what();
      return 2;
    }
    return 0;
  });
  CHECK(child.exit_code == 2);
  CHECK_THAT(child.output, Catch::Contains("huge.npz") && Catch::Contains("param/opcode_embedding") && Catch::Contains("missing"));
}

TEST_CASE("the aggregation is part of the model file: mean models as before, max ones as format 2", "[model]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph graph = small_layout_graph("model_aggregation");
  const std::string dir = testing::scratch_dir("model_aggregation");
  ModelConfig config = small_config("layout");
  CostModel mean_model(config, fit_feature_statistics({&graph}));
  mean_model.save(dir + "/mean.npz");
  config.aggregation = nn::Aggregation::Max;
  CostModel max_model(config, fit_feature_statistics({&graph}));
  max_model.save(dir + "/max.npz");
  // The same parameters (the architecture's list, the same seeds), another function of them.
  CHECK(max_model.parameter_count() == mean_model.parameter_count());
  CHECK(max_model.predict(max_model.prepare(graph)) != mean_model.predict(mean_model.prepare(graph)));
  CHECK_FALSE(mean_model.config().to_json().contains("aggregation"));
  const CostModel loaded = CostModel::load(dir + "/max.npz");
  CHECK(loaded.config().aggregation == nn::Aggregation::Max);
  CHECK(loaded.architecture().layers.front().aggregation == nn::Aggregation::Max);
  CHECK_FALSE(loaded.architecture().linear_messages());
  rewrite_model_json(dir + "/max.npz", dir + "/odd.npz", [](nlohmann::json& meta) { meta["config"]["aggregation"] = "median"; });
  CHECK_THROWS_WITH(CostModel::load(dir + "/odd.npz"), Catch::Contains("model config.aggregation") && Catch::Contains("median"));
  // A reader that knows only format 1 refuses a max model rather than running it as a mean one.
  rewrite_model_json(dir + "/max.npz", dir + "/check.npz", [](nlohmann::json& meta) { CHECK(meta["version"] == 2); });
  rewrite_model_json(dir + "/mean.npz", dir + "/check.npz", [](nlohmann::json& meta) { CHECK(meta["version"] == 1); });
}

TEST_CASE("a cross-config attention model ranks in fixed chunks and round-trips", "[model]") {
  const TpuGraph graph = small_layout_graph("model_attention");
  ModelConfig config = small_config("layout");
  config.cross_config_attention = true;
  CostModel model(config, fit_feature_statistics({&graph}));
  REQUIRE(model.couples_configs());
  REQUIRE(graph.config_count <= CostModel::kAttentionChunk);
  const PreparedGraph prepared = model.prepare(graph);
  std::vector<int32_t> all(static_cast<size_t>(graph.config_count));
  std::iota(all.begin(), all.end(), 0);
  nn::Tape tape;
  const nn::Var joint = model.forward(tape, prepared, all);
  const std::vector<float> predicted = model.predict(prepared);
  for (size_t c = 0; c < all.size(); ++c) CHECK(predicted[c] == Approx(joint.value()(static_cast<Eigen::Index>(c), 0)).margin(1e-5));
  // The configs of a batch interact: one config alone scores differently than among the others.
  nn::Tape single;
  CHECK(model.forward(single, prepared, {0}).value()(0, 0) != Approx(joint.value()(0, 0)).margin(1e-6));

  const std::string dir = testing::scratch_dir("model_attention_file");
  model.save(dir + "/model.npz");
  CostModel loaded = CostModel::load(dir + "/model.npz");
  CHECK(loaded.config().cross_config_attention);
  CHECK(loaded.predict(loaded.prepare(graph)) == predicted);
}

TEST_CASE("the runtime calibration recovers a known law, round-trips, and refuses bad values", "[model]") {
  TpuGraph graph = small_layout_graph("calibration");
  CostModel model(small_config("layout"), fit_feature_statistics({&graph}));
  const std::vector<float> cost = model.predict(model.prepare(graph));
  const double mean = std::accumulate(cost.begin(), cost.end(), 0.0) / static_cast<double>(cost.size());
  // Runtimes that follow the model's own costs: log runtime = 0.5 cost + c, so slope 0.5, R^2 1.
  for (size_t c = 0; c < cost.size(); ++c) graph.config_runtime_ns[c] = std::llround(1e9 * std::exp(0.5 * (cost[c] - mean)));
  const RuntimeCalibration fitted = fit_runtime_calibration(model, std::vector<const TpuGraph*>{&graph});
  REQUIRE(fitted.fitted());
  CHECK(fitted.log_runtime_per_score == Approx(0.5).epsilon(1e-6));
  CHECK(fitted.r2 == Approx(1.0).epsilon(1e-6));
  CHECK(fitted.configs == static_cast<int64_t>(cost.size()));
  CHECK(fitted.graphs == 1);
  CHECK(fitted.predicted_speedup(2.0f, 1.0f) == Approx(std::exp(0.5)));
  // Where it holds: the costs' spread, the graph's size; an exact law leaves no residual.
  const auto [lowest, highest] = std::minmax_element(cost.begin(), cost.end());
  CHECK(fitted.cost_range == Approx(*highest - *lowest));
  CHECK(fitted.nodes_min == graph.node_count);
  CHECK(fitted.nodes_max == graph.node_count);
  CHECK(fitted.residual_sd < 1e-3);
  const SpeedupEstimate within = fitted.estimate_speedup(*highest, *lowest, graph.node_count);
  REQUIRE(within.supported);
  CHECK(within.value == Approx(std::exp(0.5 * (*highest - *lowest))));
  CHECK((within.low <= within.value && within.value <= within.high));
  const SpeedupEstimate beyond = fitted.estimate_speedup(*highest + 2 * (*highest - *lowest), *lowest, graph.node_count);
  CHECK_FALSE(beyond.supported);
  CHECK_THAT(beyond.reason, Catch::Contains("extrapolation"));
  const SpeedupEstimate unlike = fitted.estimate_speedup(*highest, *lowest, 3 * graph.node_count);
  CHECK_FALSE(unlike.supported);
  CHECK_THAT(unlike.reason, Catch::Contains("unlike the graphs the calibration was fitted on"));
  RuntimeCalibration older = fitted;  // a model calibrated before the range was recorded
  older.cost_range = 0, older.nodes_min = older.nodes_max = 0;
  CHECK_THAT(older.estimate_speedup(*highest, *lowest, graph.node_count).reason, Catch::Contains("recalibrate"));
  // Noisy runtimes: a wider interval.
  for (size_t c = 0; c < cost.size(); ++c)
    graph.config_runtime_ns[c] = std::llround(1e9 * std::exp(0.5 * (cost[c] - mean) + (c % 2 == 0 ? 0.05 : -0.05)));
  const RuntimeCalibration noisy = fit_runtime_calibration(model, std::vector<const TpuGraph*>{&graph});
  REQUIRE(noisy.fitted());
  CHECK(noisy.residual_sd > 0.01);
  const SpeedupEstimate spread = noisy.estimate_speedup(*highest, *lowest, graph.node_count);
  CHECK(spread.supported);
  CHECK(spread.high / spread.low > within.high / within.low);
  // Runtimes scattered by a factor of e^0.5 around the law: too wide to state a figure.
  for (size_t c = 0; c < cost.size(); ++c)
    graph.config_runtime_ns[c] = std::llround(1e9 * std::exp(0.5 * (cost[c] - mean) + (c % 2 == 0 ? 0.5 : -0.5)));
  const RuntimeCalibration scattered = fit_runtime_calibration(model, std::vector<const TpuGraph*>{&graph});
  if (scattered.fitted()) {
    const SpeedupEstimate vague = scattered.estimate_speedup(*highest, *lowest, graph.node_count);
    CHECK_FALSE(vague.supported);
    CHECK_THAT(vague.reason, Catch::Contains("too wide to state a figure"));
  }
  // Runtimes that fall as costs rise: no calibration (the model ranks backwards).
  for (size_t c = 0; c < cost.size(); ++c) graph.config_runtime_ns[c] = std::llround(1e9 * std::exp(-0.5 * (cost[c] - mean)));
  CHECK_FALSE(fit_runtime_calibration(model, std::vector<const TpuGraph*>{&graph}).fitted());

  // Saved and loaded with the model; a file without one loads uncalibrated.
  const std::string dir = testing::scratch_dir("calibration_file");
  model.save(dir + "/plain.npz");
  CHECK_FALSE(CostModel::load(dir + "/plain.npz").calibration().fitted());
  model.set_calibration(fitted);
  model.save(dir + "/calibrated.npz");
  const RuntimeCalibration loaded = CostModel::load(dir + "/calibrated.npz").calibration();
  CHECK(loaded.log_runtime_per_score == fitted.log_runtime_per_score);
  CHECK(loaded.r2 == fitted.r2);
  CHECK(loaded.configs == fitted.configs);
  CHECK(loaded.cost_range == fitted.cost_range);
  CHECK(loaded.residual_sd == fitted.residual_sd);
  CHECK((loaded.nodes_min == fitted.nodes_min && loaded.nodes_max == fitted.nodes_max));
  // A calibration saved before the range was recorded still loads, and gives no speedups.
  rewrite_model_json(dir + "/calibrated.npz", dir + "/older.npz", [](nlohmann::json& meta) {
    for (const char* key : {"cost_range", "residual_sd", "nodes"}) meta["calibration"].erase(key);
  });
  CHECK_FALSE(CostModel::load(dir + "/older.npz").calibration().knows_its_range());
  rewrite_model_json(dir + "/calibrated.npz", dir + "/bad_nodes.npz", [](nlohmann::json& meta) { meta["calibration"]["nodes"] = {9, 3}; });
  CHECK_THROWS_WITH(CostModel::load(dir + "/bad_nodes.npz"), Catch::Contains("model_json.calibration.nodes"));

  // An R^2 outside [0, 1] in the file is refused, naming the field and the value.
  rewrite_model_json(dir + "/calibrated.npz", dir + "/bad.npz", [](nlohmann::json& meta) { meta["calibration"]["r2"] = 2.5; });
  CHECK_THROWS_WITH(CostModel::load(dir + "/bad.npz"),
                    Catch::Contains("bad.npz") && Catch::Contains("model_json.calibration.r2") && Catch::Contains("2.5"));
}
