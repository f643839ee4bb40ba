// Graph Segment Training: partitions cover every node once, segments with a halo of `layers` hops
// sum to exactly the whole-graph forward pass, and GST training learns to rank.
#include <catch2/catch.hpp>

#include <numeric>

#include "data/dataset_survey.h"
#include "model/cost_model.h"
#include "model/graph_partition.h"
#include "nn/ops.h"
#include "test_support.h"
#include "train/segment_training.h"
#include "train/trainer.h"

using namespace graphcost;

namespace {

ModelConfig gst_config(const std::string& kind, int hops) {
  ModelConfig config;
  config.kind = kind == "tile" ? GraphKind::Tile : GraphKind::Layout;
  config.collection = kind == "tile" ? "tile:xla" : "layout:xla:random";
  config.opcode_embedding = 4;
  config.hidden = 16;
  config.layers = 2;
  config.hops = hops;
  config.seed = 9;
  return config;
}

TpuGraph generated_graph(const std::string& name, const std::string& collection, int max_nodes) {
  const std::string root = testing::generate_tree(name, collection, 2, 21, max_nodes, 30);
  for (const std::string& path : find_npz_files(root)) {
    const TpuGraph graph = load_tpu_graph(path);
    if (!graph.runtimes_hidden) return graph;
  }
  FAIL("no labelled graph generated");
  return {};
}

}  // namespace

TEST_CASE("partitions put every view node in exactly one segment", "[gst]") {
  const TpuGraph graph = generated_graph("gst_partition", "layout:xla:random", 1500);
  const GraphView view = make_graph_view(graph, -1);
  REQUIRE(view.size() > 400);
  for (PartitionMethod method : {PartitionMethod::Metis, PartitionMethod::Contiguous}) {
    const GraphPartition partition = partition_graph(view, 100, method, 3);
    std::vector<int> seen(static_cast<size_t>(view.size()), 0);
    for (const auto& segment : partition.segments) {
      CHECK(std::is_sorted(segment.begin(), segment.end()));
      for (int32_t v : segment) ++seen[static_cast<size_t>(v)];
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int count) { return count == 1; }));
    CHECK(partition.segments.size() >= static_cast<size_t>(view.size() / 100) - 1);
    CHECK(partition.cut_edges > 0);
  }
  const GraphPartition metis = partition_graph(view, 100, PartitionMethod::Metis, 3);
  const GraphPartition ranges = partition_graph(view, 100, PartitionMethod::Contiguous, 3);
  INFO("cut edges: metis " << metis.cut_edges << ", contiguous " << ranges.cut_edges);
  CHECK(metis.cut_edges <= ranges.cut_edges * 3 / 2);
  CHECK(partition_graph(view, view.size(), PartitionMethod::Metis).segments.size() == 1);
  CHECK_THROWS_AS(value_named(partition_method_names(), "spectral", "partition"), InputError);
  CHECK(value_named(partition_method_names(), "contiguous", "partition") == PartitionMethod::Contiguous);
}

TEST_CASE("an induced view keeps the edges among its nodes and their configurable slots", "[gst]") {
  const TpuGraph graph = generated_graph("gst_induced", "layout:xla:random", 600);
  const GraphView view = make_graph_view(graph, -1);
  std::vector<int32_t> kept;
  for (int32_t v = 0; v < view.size(); v += 2) kept.push_back(v);
  const GraphView sub = induced_view(view, kept);
  REQUIRE(sub.size() == static_cast<int32_t>(kept.size()));
  int64_t expected_edges = 0;
  for (int32_t v : kept) {
    for (int32_t k = view.producers.offsets[static_cast<size_t>(v)]; k < view.producers.offsets[static_cast<size_t>(v) + 1]; ++k) {
      expected_edges += view.producers.neighbours[static_cast<size_t>(k)] % 2 == 0;
    }
  }
  CHECK(static_cast<int64_t>(sub.producers.neighbours.size()) == expected_edges);
  CHECK(sub.consumers.neighbours.size() == sub.producers.neighbours.size());
  REQUIRE(sub.configurable.size() == sub.configurable_slot.size());
  for (size_t k = 0; k < sub.configurable.size(); ++k) {
    CHECK(sub.nodes[static_cast<size_t>(sub.configurable[k])] == graph.configurable_nodes[static_cast<size_t>(sub.configurable_slot[k])]);
  }
}

TEST_CASE("segments with a halo of `layers` hops sum to exactly the whole-graph forward pass", "[gst]") {
  const auto [collection, hops] =
      GENERATE(std::make_pair(std::string("layout:xla:random"), -1), std::make_pair(std::string("layout:xla:random"), 1),
               std::make_pair(std::string("tile:xla"), -1));
  const PartitionMethod method = GENERATE(PartitionMethod::Metis, PartitionMethod::Contiguous);
  INFO(collection << " hops " << hops << " method " << (method == PartitionMethod::Metis ? "metis" : "contiguous"));
  const TpuGraph graph = generated_graph("gst_exact_" + collection.substr(0, 4) + std::to_string(hops), collection, 900);
  CostModel model(gst_config(graph.kind == GraphKind::Tile ? "tile" : "layout", hops), fit_feature_statistics({&graph}));
  const PreparedGraph prepared = model.prepare(graph);
  SegmentOptions options;
  options.segment_nodes = graph.kind == GraphKind::Tile ? std::max(2, prepared.view.size() / 2) : prepared.view.size() / 5;
  options.partition = method;
  SegmentedGraph segmented(prepared, model.config().layers, options, 1);
  REQUIRE(segmented.segment_count() >= 2);
  const std::vector<int32_t> configs = {0, 1, 2, 5};
  nn::Tape whole_tape, segment_tape;
  const nn::Var whole = model.forward(whole_tape, prepared, configs);
  const nn::Var pieces = segmented.frozen_backbone_cost(segment_tape, model, configs);
  for (Eigen::Index b = 0; b < whole.rows(); ++b) CHECK(pieces.value()(b, 0) == Approx(whole.value()(b, 0)).epsilon(1e-4).margin(1e-4));

  // With every segment fresh in a training step, the step's costs are the same numbers.
  options.segments_per_step = static_cast<int>(segmented.segment_count());
  SegmentedGraph all_fresh(prepared, model.config().layers, options, 1);
  std::mt19937_64 random(4);
  nn::Tape step_tape;
  const nn::Var step = all_fresh.cost(step_tape, model, configs, random);
  for (Eigen::Index b = 0; b < whole.rows(); ++b) CHECK(step.value()(b, 0) == Approx(whole.value()(b, 0)).epsilon(1e-4).margin(1e-4));
  CHECK(all_fresh.counters().stale == 0);

  // The default (stale sums recomputed every step, none dropped): one segment on the tape, the
  // rest without gradient, and still the same numbers, step after step.
  SegmentOptions defaults;
  defaults.segment_nodes = options.segment_nodes;
  defaults.partition = options.partition;
  SegmentedGraph recomputed(prepared, model.config().layers, defaults, 1);
  for (int step = 0; step < 2; ++step) {
    nn::Tape tape;
    const nn::Var costs = recomputed.cost(tape, model, configs, random);
    for (Eigen::Index b = 0; b < whole.rows(); ++b) CHECK(costs.value()(b, 0) == Approx(whole.value()(b, 0)).epsilon(1e-4).margin(1e-4));
  }
  CHECK(recomputed.counters().dropped == 0);
}

TEST_CASE("graph segment training learns to rank and finetunes the head", "[gst][training]") {
  const std::string root = testing::generate_tree("gst_training", "layout:xla:random", 6, 31, 900, 60);
  TrainOptions options;
  options.data = root;
  options.collection = "layout:xla:random";
  options.train_split = "train,valid";  // small tree: fit and judge on the same labelled files
  options.valid_split = "train,valid";
  options.epochs = testing::sanitized_build() ? 1 : 4;
  options.steps_per_epoch = testing::sanitized_build() ? 6 : 40;
  options.configs_per_step = 16;
  options.model = gst_config("layout", -1);
  options.segments.segment_nodes = 120;
  options.segments.max_staleness = -1;  // the pure historical table, with stale dropout
  options.segments.stale_dropout = 0.5f;
  options.segments.finetune_steps = testing::sanitized_build() ? 4 : 30;
  options.out = testing::scratch_dir("gst_training_model") + "/model.npz";
  std::vector<EpochReport> reports;
  const TrainResult result = train_model(options, [&](const EpochReport& report, int) {
    reports.push_back(report);
    return true;
  });
  REQUIRE(result.segments > result.train_graphs);
  CHECK(result.halo_ratio > 1.0);
  CHECK(result.segment_counters.fresh == options.epochs * options.steps_per_epoch);
  CHECK(result.segment_counters.stale > 0);
  CHECK(result.segment_counters.dropped > 0);
  REQUIRE(reports.size() == static_cast<size_t>(options.epochs) + 2);  // epoch 0, epochs, head finetuning
  CHECK(reports.back().head_finetuning);
  INFO("tau at start " << reports.front().valid_metric << ", after GST " << reports[reports.size() - 2].valid_metric
                       << ", after finetuning " << reports.back().valid_metric);
  if (!testing::sanitized_build()) CHECK(reports.back().valid_metric > reports.front().valid_metric + 0.1);
  // The file is an ordinary model: it loads and ranks through the whole graph.
  CostModel loaded = CostModel::load(options.out);
  CHECK_FALSE(loaded.couples_configs());
}
