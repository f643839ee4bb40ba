// The trainer: a run stopped after some epochs and resumed from its checkpoint ends with exactly
// the model an uninterrupted run gives (Adam moments, step count and the config sampler are in the
// checkpoint); resuming from a plain model file is refused by name.
#include <catch2/catch.hpp>

#include "common/input_error.h"
#include "data/dataset_survey.h"
#include "data/graph_summary.h"
#include "data/tpu_graph.h"
#include "io/npz_file.h"
#include "model/feature_encoder.h"
#include "test_support.h"
#include "train/trainer.h"

using namespace graphcost;

namespace {

TrainOptions small_run(const std::string& data, const std::string& out, int epochs) {
  TrainOptions options;
  options.data = data;
  options.collection = "layout:xla:random";
  options.out = out;
  options.epochs = epochs;
  options.steps_per_epoch = 5;
  options.configs_per_step = 8;
  options.model.hidden = 16;
  options.model.opcode_embedding = 4;
  options.model.layers = 1;
  options.model.seed = 4;
  return options;
}

std::vector<nn::Matrix> parameters_of(const std::string& path) {
  CostModel model = CostModel::load(path);  // must outlive the loop: parameters() points into it
  std::vector<nn::Matrix> values;
  for (nn::Parameter* p : model.parameters()) values.push_back(p->value);
  return values;
}

}  // namespace

TEST_CASE("training resumed from a checkpoint ends where an uninterrupted run ends", "[training]") {
  const std::string tree = testing::generate_tree("trainer_resume", "layout:xla:random", 4, 12, 250, 30);
  const std::string straight = tree + "/straight.npz", resumed = tree + "/resumed.npz";

  const TrainResult whole = train_model(small_run(tree, straight, 4));
  REQUIRE(whole.epochs.size() == 4);
  // Stopped after 2 of 4 epochs (as Ctrl-C would leave it: the last checkpoint on disk); the first
  // part runs with the final epoch count (the schedule depends on it), cut short by the callback.
  train_model(small_run(tree, resumed, 4), [](const EpochReport& report, int) { return report.epoch < 2; });
  TrainOptions again = small_run(tree, resumed, 4);
  again.resume = true;
  const TrainResult rest = train_model(again);
  REQUIRE(rest.epochs.size() == 2);
  CHECK(rest.epochs.front().epoch == 3);
  const std::vector<nn::Matrix> a = parameters_of(straight), b = parameters_of(resumed);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
  CHECK(rest.epochs.back().valid_metric == whole.epochs.back().valid_metric);

  // A model file without training state cannot be resumed.
  CostModel::load(straight).save(tree + "/plain.npz");
  TrainOptions plain = small_run(tree, tree + "/plain.npz", 4);
  plain.resume = true;
  try {
    train_model(plain);
    FAIL("resume from a plain model file was accepted");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).find("train_state_json") != std::string::npos);
  }
}

TEST_CASE("with several graphs per step, balanced draws give the shards similar graphs", "[training]") {
  // 12 files of 60-600 nodes; 4 graphs a step (shards of 2-3 training files each).
  const std::string tree = testing::generate_tree("trainer_balance", "layout:xla:random", 12, 21, 600, 20);
  auto imbalance = [&](bool balanced) {
    TrainOptions options = small_run(tree, tree + (balanced ? "/balanced.npz" : "/independent.npz"), 1);
    options.steps_per_epoch = 40;
    options.graphs_per_step = 4;
    options.balance_graph_sizes = balanced;
    const TrainResult result = train_model(options);
    REQUIRE(result.epochs.size() == 1);
    return result.epochs.front().step_imbalance;
  };
  const double balanced = imbalance(true), independent = imbalance(false);
  INFO("step imbalance (largest view over the mean): balanced " << balanced << ", independent " << independent);
  // 1.19 and 1.41 when written; path-order shards with a shared rank give 1.28.
  CHECK(balanced >= 1.0);
  CHECK(balanced < 1.25);
  CHECK(independent > 1.3);
  // One graph per step reports none.
  TrainOptions one = small_run(tree, tree + "/one.npz", 1);
  CHECK(train_model(one).epochs.front().step_imbalance == 0.0);
}

TEST_CASE("the step's size rank is uniform, differs by seed, and depends on seed and step alone", "[training]") {
  std::vector<int> tenths(10, 0);
  int same_as_other_seed = 0;
  for (int step = 0; step < 4000; ++step) {
    const double rank = step_size_rank(7, step);
    REQUIRE(rank >= 0.0);
    REQUIRE(rank < 1.0);
    ++tenths[static_cast<size_t>(rank * 10)];
    same_as_other_seed += rank == step_size_rank(8, step);
    CHECK(rank == step_size_rank(7, step));
  }
  for (int count : tenths) CHECK((count > 330 && count < 470));  // 400 expected each
  CHECK(same_as_other_seed == 0);
}

TEST_CASE("a fit on some configs uses each of them, though their rows repeat configs not listed", "[training]") {
  // tune fits on the measured configs only; real files repeat rows (unet3d: 1,159 configs, 681
  // distinct), so a measured config's row often appears first at a config not measured.
  const std::string tree = testing::generate_tree("trainer_repeated_rows", "layout:xla:random", 1, 5, 40, 30);
  TpuGraph graph = load_tpu_graph(find_npz_files(tree).front());
  const std::vector<int32_t> distinct = distinct_config_indices(graph);
  REQUIRE(distinct.size() >= 6);
  // Configs 0..5: six distinct rows; 6..11 repeat them, each with a runtime of its own.
  const size_t width = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  std::vector<int8_t> rows;
  std::vector<int64_t> runtimes;
  for (size_t c = 0; c < 12; ++c) {
    const size_t source = static_cast<size_t>(distinct[c % 6]);
    rows.insert(rows.end(), graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(source * width),
                graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>((source + 1) * width));
    runtimes.push_back(1000 + static_cast<int64_t>(c));
  }
  graph.layout_config_features = rows;
  graph.config_runtime_ns = runtimes;
  graph.config_count = 12;
  REQUIRE(count_distinct_configs(graph) == 6);
  const std::vector<int32_t> measured = {6, 7, 8, 9, 10, 11, 1};  // 1 repeats 7: one group, two labels
  ModelConfig config;
  config.kind = GraphKind::Layout;
  config.hidden = 8;
  config.opcode_embedding = 4;
  config.layers = 1;
  CostModel model(config, fit_feature_statistics({&graph}));
  TrainOptions options;
  options.epochs = 1;
  options.steps_per_epoch = 2;
  options.configs_per_step = 8;
  options.graphs_per_step = 1;
  const TrainResult result = fit_model(model, {GraphConfigs{&graph, measured, nullptr}}, {}, options);
  CHECK(result.train_configs == 6);
}
