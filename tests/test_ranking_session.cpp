// RankingSession, the browser app's logic run natively: its drawing is `graphcost draw`'s, its
// costs are `graphcost predict`'s, its metrics the evaluator's, and its explanations, what-if and
// search agree with direct predictions; work runs in budgeted steps with an honest progress().
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/input_error.h"
#include "common/units.h"
#include "data/dataset_survey.h"
#include "data/opcodes.h"
#include "drawing/layered_drawing.h"
#include "metrics/ranking_metrics.h"
#include "sessions/ranking_session.h"
#include "sessions/scatter_axes.h"
#include "test_support.h"

using namespace graphcost;

namespace {

// Steps `session` until done, checking that the stages come in order and the fractions stay in
// [0, 1]; returns the stages seen (consecutive repeats collapsed).
std::vector<std::string> run_to_end(RankingSession& session) {
  std::vector<std::string> stages;
  for (int steps = 0; !session.done(); ++steps) {
    REQUIRE(steps < 1000000);
    const RankingSession::Progress progress = session.progress();
    CHECK(progress.fraction >= 0.0);
    CHECK(progress.fraction <= 1.0);
    const std::string kind = progress.stage.substr(0, progress.stage.find(':'));
    if (stages.empty() || stages.back() != kind) stages.push_back(kind);
    session.step(5);
  }
  CHECK(session.progress().stage == "done");
  return stages;
}

std::shared_ptr<CostModel> small_model(const TpuGraph& graph) {
  ModelConfig config;
  config.kind = graph.kind;
  config.collection = graph.kind == GraphKind::Tile ? "tile:xla" : "layout:xla:random";
  config.hidden = 16;
  config.opcode_embedding = 4;
  config.seed = 5;
  return std::make_shared<CostModel>(config, fit_feature_statistics({&graph}));
}

LayeredDrawing cli_layout(const TpuGraph& graph) {
  std::vector<std::pair<int32_t, int32_t>> edges;
  for (const Edge& e : graph.edges) edges.emplace_back(e.producer, e.consumer);
  return draw_layered(graph.node_count, edges);
}

}  // namespace

TEST_CASE("a session lays out, ranks and scores a real layout file as the CLI does", "[model][session][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::string path = testing::real_file("npz/layout/xla/random/valid/unet_3d.4x4.bf16.npz");
  auto model = std::make_shared<CostModel>(CostModel::load(testing::source_dir() + "/models/layout_xla.npz"));
  RankingSession session(std::make_unique<TpuGraph>(load_tpu_graph(path)), model, "layout_xla.npz");
  CHECK_FALSE(session.drawing().done());
  CHECK(session.progress().stage.rfind("drawing: ", 0) == 0);
  CHECK(run_to_end(session) == std::vector<std::string>{"drawing", "ranking"});
  const TpuGraph& graph = session.graph();

  const LayeredDrawing expected = cli_layout(graph);  // `graphcost layout`
  CHECK(session.drawing().layered().x == expected.x);
  CHECK(session.drawing().layered().y == expected.y);

  const TpuGraph reference = load_tpu_graph(path);  // `graphcost predict`
  CostModel cli_model = CostModel::load(testing::source_dir() + "/models/layout_xla.npz");
  CHECK(session.ranking().costs() == cli_model.predict(cli_model.prepare(reference)));

  const std::vector<double> targets = config_ranking_targets(graph);
  CHECK(session.ranking().metrics().labelled);
  CHECK(session.ranking().metrics().kendall_tau == layout_kendall_tau(targets, session.ranking().order()));
  CHECK(session.ranking().metrics().top5_slowdown == slowdown_at_k(targets, session.ranking().order(), 5));
  std::vector<int32_t> ranks = session.ranking().true_rank();
  std::sort(ranks.begin(), ranks.end());
  std::vector<int32_t> all(ranks.size());
  std::iota(all.begin(), all.end(), 0);
  CHECK(ranks == all);
  const int32_t fastest = static_cast<int32_t>(std::min_element(targets.begin(), targets.end()) - targets.begin());
  CHECK(session.ranking().true_rank()[static_cast<size_t>(fastest)] == 0);

  const nlohmann::json state = session.state();
  CHECK(state["kind"] == "layout");
  CHECK(state["ranking"]["done"] == true);
  CHECK(state["ranking"]["order"].size() == static_cast<size_t>(graph.config_count));
  CHECK(state["ranking"]["kendall_tau"] == session.ranking().metrics().kendall_tau);
  REQUIRE(model->calibration().fitted());  // the shipped model's pick against config 0, as the CLI's calibration says
  const float pick = session.ranking().costs()[static_cast<size_t>(session.ranking().order().front())];
  const SpeedupEstimate speedup = session.ranking().predicted_speedup();
  if (speedup.supported) {
    CHECK(speedup.value == model->calibration().predicted_speedup(session.ranking().costs().front(), pick));
    CHECK(state["ranking"]["predicted_speedup"] == speedup.value);
  } else {
    CHECK(state["ranking"]["predicted_speedup_note"] == speedup.reason);
  }

  // The predicted-vs-measured scatter: one point per config in the unit square, ordered as the data.
  const auto points = session.ranking().cost_runtime_points();
  REQUIRE(points.size() == static_cast<size_t>(graph.config_count));
  for (const auto& [cost, runtime] : points) CHECK((cost >= 0 && cost <= 1 && runtime >= 0 && runtime <= 1));
  const auto slowest = std::max_element(graph.config_runtime_ns.begin(), graph.config_runtime_ns.end()) - graph.config_runtime_ns.begin();
  CHECK(points[static_cast<size_t>(slowest)].second == 1.0f);
}

TEST_CASE("a session opens files with the shelf's model of their kind, and refuses bad files", "[model][session][real]") {
  SKIP_WITHOUT_REAL_DATA();
  ModelShelf models(testing::source_dir() + "/models");
  const auto layout = RankingSession::open(testing::real_file("npz/layout/xla/random/valid/unet_3d.4x4.bf16.npz"), "unet", models);
  CHECK(layout->file() == "unet");
  CHECK(layout->model_source() == models.path_for(ShippedModel::LayoutXla));
  CHECK(layout->state()["file"] == "unet");
  const auto tile = RankingSession::open(testing::real_file("npz/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz"), "", models);
  CHECK(tile->model().config().kind == GraphKind::Tile);
  CHECK(tile->file().find("retinanet") != std::string::npos);
  CHECK(models.model_for(ShippedModel::LayoutXla).get() == &layout->model());  // loaded once
  // An NLP program gets the NLP model: by its place in the dataset tree, or by its name.
  const auto nlp = RankingSession::open(testing::real_file("npz/layout/nlp/random/test/23559853d9702baaaacbb0c83fd32266.npz"), "", models);
  CHECK(nlp->model_source() == models.path_for(ShippedModel::LayoutNlp));
  CHECK(nlp->model().config().collection.find("layout:nlp:") != std::string::npos);
  CHECK_THROWS_AS(RankingSession::open(testing::data_dir() + "/nonconforming/alexnet_trimmed_columns.npz", "", models), InputError);
}

TEST_CASE("layout files named as NLP programs get the NLP model, others the XLA one", "[model][session]") {
  TpuGraph graph;
  graph.kind = GraphKind::Layout;
  CHECK(shipped_model_for(graph, "generated layout-nlp-random.npz") == ShippedModel::LayoutNlp);
  CHECK(shipped_model_for(graph, "demos/real NLP test graph (21,918 nodes).npz") == ShippedModel::LayoutNlp);
  CHECK(shipped_model_for(graph, "unet_3d.4x4.bf16.npz") == ShippedModel::LayoutXla);
  CHECK(shipped_model_for(graph, "unlp_model.npz") == ShippedModel::LayoutXla);  // "nlp" inside a word does not count
  graph.location.collection = "layout:xla:random";                               // the tree's folder wins over the name
  CHECK(shipped_model_for(graph, "nlp.npz") == ShippedModel::LayoutXla);
  graph.kind = GraphKind::Tile;
  CHECK(shipped_model_for(graph, "nlp.npz") == ShippedModel::Tile);
}

TEST_CASE("a session's explanations, what-if and search agree with direct predictions", "[model][session]") {
  const std::string tree = testing::generate_tree("ranking_session_layout", "layout:xla:random", 1, 17, 400, 30);
  const TpuGraph graph = load_tpu_graph(find_npz_files(tree).front());
  auto model = small_model(graph);
  RankingSession session(std::make_unique<TpuGraph>(graph), model, "small");
  run_to_end(session);
  REQUIRE(session.explainable());
  CHECK(session.ranking().costs() == model->predict(model->prepare(graph)));

  // What-if of a listed config: its own cost, ranked behind exactly the cheaper ones.
  const int32_t config = session.ranking().order()[3];
  const SessionRanking::WhatIf what_if = session.ranking().what_if(layout_config_values(graph, config));
  CHECK(what_if.cost == Approx(session.ranking().costs()[static_cast<size_t>(config)]).margin(1e-5));
  const auto cheaper =
      std::count_if(session.ranking().costs().begin(), session.ranking().costs().end(), [&](float c) { return c < what_if.cost; });
  CHECK(what_if.rank == cheaper);

  // Explanation: runs through step(), lands on configurable nodes, strongest first.
  session.explain(config);
  CHECK(session.explanation().running());
  CHECK_FALSE(session.explanation().done());
  CHECK(session.progress().stage == "explaining");
  CHECK(run_to_end(session) == std::vector<std::string>{"explaining"});
  CHECK(session.explanation().done());
  CHECK_FALSE(session.explanation().compared());
  const std::string occlusion = "config " + std::to_string(config) + ": " +
                                std::to_string(session.explanation().contributions().slots.size()) +
                                " nodes differ from the most common layout";
  CHECK(session.explanation().summary().rfind(occlusion, 0) == 0);
  CHECK(session.state()["explanation"] == session.explanation().summary());
  CHECK(session.explanation().contributions().reference_cost ==
        Approx(session.ranking().costs()[static_cast<size_t>(config)]).margin(1e-5));
  const std::vector<float>& per_node = session.explanation().node_contribution();
  for (int32_t v = 0; v < graph.node_count; ++v) {
    if (per_node[static_cast<size_t>(v)] != 0) {
      CHECK(std::binary_search(graph.configurable_nodes.begin(), graph.configurable_nodes.end(), v));
    }
  }
  const auto strongest = session.explanation().strongest(5);
  CHECK(strongest.size() == std::min<size_t>(5, session.explanation().contributions().slots.size()));
  for (size_t i = 1; i < strongest.size(); ++i) CHECK(std::fabs(strongest[i - 1].second) >= std::fabs(strongest[i].second));
  const int32_t other = session.ranking().order().back();
  session.compare(config, other);
  CHECK_FALSE(session.explanation().done());  // the occlusion is forgotten at once
  run_to_end(session);
  CHECK(session.explanation().compared());
  // The summary names the configs explained, not whatever is selected later.
  CHECK(session.explanation().summary().rfind("config " + std::to_string(config) + " -> " + std::to_string(other) + ": predicted ", 0) ==
        0);
  CHECK(session.explanation().contributions().reference_cost ==
        Approx(session.ranking().costs()[static_cast<size_t>(config)]).margin(1e-5));
  CHECK(session.explanation().contributions().other_cost == Approx(session.ranking().costs()[static_cast<size_t>(other)]).margin(1e-5));

  // Search from the best listed config: never worse than where it started.
  session.start_search();
  CHECK(session.progress().stage == "searching");
  run_to_end(session);
  REQUIRE(session.search().current() != nullptr);
  CHECK(session.search().current()->best_cost() <= session.search().current()->start_cost());
  CHECK(session.state()["search"]["done"] == true);
  const float best_listed = session.ranking().costs()[static_cast<size_t>(session.ranking().order().front())];
  CHECK(session.search().found_better() == (session.search().current()->best_cost() < best_listed));
  CHECK(session.search().summary().rfind(session.search().found_better() ? "found a config" : "no better config found", 0) == 0);
  CHECK(session.state()["search"]["summary"] == session.search().summary());
  CHECK_FALSE(session.ranking().predicted_speedup().supported);  // the small model has no runtime calibration
  CHECK_THAT(session.ranking().predicted_speedup().reason, Catch::Contains("no runtime calibration"));
  session.stop_search();
  CHECK(session.search().summary().empty());
}

TEST_CASE("a session's graph queries: k-hop neighbourhoods, node search, groups", "[model][session]") {
  const std::string tree = testing::generate_tree("ranking_session_queries", "layout:nlp:random", 1, 23, 600, 8);
  const TpuGraph graph = load_tpu_graph(find_npz_files(tree).front());
  RankingSession session(std::make_unique<TpuGraph>(graph), small_model(graph), "small");
  run_to_end(session);

  const Edge& edge = graph.edges.front();
  std::vector<char> zero = session.neighbourhood(edge.consumer, 0);
  CHECK(std::count(zero.begin(), zero.end(), 1) == 1);
  std::vector<char> one = session.neighbourhood(edge.consumer, 1);
  CHECK(one[static_cast<size_t>(edge.producer)] == 1);
  int32_t adjacent = 1;  // the node itself
  std::vector<char> expected(static_cast<size_t>(graph.node_count), 0);
  for (const Edge& e : graph.edges) {
    if (e.consumer == edge.consumer) expected[static_cast<size_t>(e.producer)] = 1;
    if (e.producer == edge.consumer) expected[static_cast<size_t>(e.consumer)] = 1;
  }
  expected[static_cast<size_t>(edge.consumer)] = 1;
  adjacent = static_cast<int32_t>(std::count(expected.begin(), expected.end(), 1));
  CHECK(one == expected);
  CHECK(std::count(one.begin(), one.end(), 1) == adjacent);

  CHECK(session.find_nodes("7", 10) == std::vector<int32_t>{7});
  CHECK(session.find_nodes(std::to_string(graph.node_count), 10).empty());
  const std::vector<int32_t> fusions = session.find_nodes("fusion", 1000000);
  CHECK(std::is_sorted(fusions.begin(), fusions.end()));
  for (int32_t v : fusions) CHECK(opcode_name(graph.node_opcodes[static_cast<size_t>(v)]).find("fusion") != std::string::npos);
  CHECK(session.find_nodes("fusion", 2).size() == std::min<size_t>(2, fusions.size()));

  // Hit testing and geometry: each node is found at its own position; edges run producer to consumer.
  for (int32_t v : {0, graph.node_count / 2, graph.node_count - 1}) {
    CHECK(session.drawing().node_at(session.drawing().layered().x[static_cast<size_t>(v)],
                                    session.drawing().layered().y[static_cast<size_t>(v)], 0) == v);
  }
  CHECK(session.drawing().node_at(-100, -100, 0) == -1);
  const std::vector<EdgeSegment> segments = session.drawing().edge_segments();
  REQUIRE(segments.size() == graph.edges.size());
  for (size_t e = 0; e < segments.size(); ++e) {
    CHECK(segments[e].x1 == session.drawing().layered().x[static_cast<size_t>(graph.edges[e].consumer)]);
    if (!segments[e].stub) CHECK(segments[e].x0 == session.drawing().layered().x[static_cast<size_t>(graph.edges[e].producer)]);
  }
  for (size_t slot = 0; slot < graph.configurable_nodes.size(); ++slot) {
    CHECK(session.configurable_slot(graph.configurable_nodes[slot]) == static_cast<int32_t>(slot));
  }
  CHECK(session.configurable_slot(-1) == -1);

  // The nested boxes hold every node once; no box opens onto more than 30 children.
  const GraphHierarchy& hierarchy = session.drawing().hierarchy();
  CHECK(hierarchy.cluster(0).node_count == graph.node_count);
  CHECK(hierarchy.subtree_nodes(0).size() == static_cast<size_t>(graph.node_count));
  for (const HierarchyCluster& cluster : hierarchy.clusters()) CHECK(cluster.items.size() <= 30);
  CHECK(session.state()["hierarchy"]["top_level"] == hierarchy.cluster(0).items.size());
}

TEST_CASE("a session's boxes: an imported module by computation and op_name, a real 22k-node graph in parts",
          "[model][session][hierarchy]") {
  SKIP_WITHOUT_REAL_DATA();
  ModelShelf models(testing::source_dir() + "/models");
  // ResNet-50 (JAX): its computations, then the namespaces of the op_names.
  auto resnet = RankingSession::open(testing::data_dir() + "/hlo/resnet50_keras_jax_f32.hlo", "resnet50", models);
  resnet->drawing().finish_early();
  const TpuGraph& graph = resnet->graph();
  REQUIRE_FALSE(graph.names.empty());
  const std::vector<std::vector<std::string>> paths = hierarchy_paths(graph);
  for (int32_t v : {0, graph.node_count / 2, graph.node_count - 1}) {
    const std::vector<std::string>& path = paths[static_cast<size_t>(v)];
    REQUIRE_FALSE(path.empty());
    CHECK(path.front() == graph.names.computation_of(v));
    std::string joined;
    for (size_t i = 1; i < path.size(); ++i) joined += path[i] + "/";
    if (!graph.names.op_names[static_cast<size_t>(v)].empty()) {
      CHECK(graph.names.op_names[static_cast<size_t>(v)].rfind(joined, 0) == 0);  // the op_name's namespaces, in order
    }
  }
  // Instructions outside any namespace follow the op they feed: main's 321 weights ("state[0][0]")
  // and the reshapes XLA added sit in their layers' namespaces, not at main's top.
  size_t bare = 0, placed = 0;
  for (int32_t v = 0; v < graph.node_count; ++v) {
    if (graph.names.op_names[static_cast<size_t>(v)].find('/') != std::string::npos) continue;
    ++bare;
    placed += paths[static_cast<size_t>(v)].size() > 1;
  }
  CHECK(bare > 300);
  CHECK(placed > bare * 8 / 10);  // the rest are in small computations without namespaces (region_0, relu.2)
  const GraphHierarchy& boxes = resnet->drawing().hierarchy();
  size_t titled = 0;
  for (const HierarchyItem& item : boxes.cluster(0).items) titled += item.cluster && boxes.cluster(item.id).title.rfind("layers ", 0) != 0;
  CHECK(titled > 0);  // named by the module, not only by layers

  // The real 21,918-node nlp graph has no names and one section: parts of consecutive layers,
  // a few dozen at the top, and opening one lays out only its children.
  auto nlp = RankingSession::open(testing::real_file("npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz"), "nlp", models);
  nlp->drawing().finish_early();
  GraphHierarchy& parts = nlp->drawing().hierarchy();
  CHECK(parts.cluster(0).items.size() >= 20);
  CHECK(parts.cluster(0).items.size() <= 30);
  CHECK(parts.visible().size() == parts.cluster(0).items.size());
  const int32_t first = parts.visible().front().id;
  CHECK(parts.cluster(first).title.rfind("layers 0-", 0) == 0);
  CHECK_FALSE(nlp->drawing().cluster_contents(first).empty());
  CHECK(parts.expand(first));
  CHECK(parts.visible().size() == parts.cluster(0).items.size() - 1 + parts.cluster(first).items.size());
  size_t drawn = 0;
  for (const HierarchyCluster& c : parts.clusters()) drawn += c.content_drawn;
  CHECK(drawn == 2);  // the root and the opened box: nothing else was drawn
}

TEST_CASE("a tile session ranks all at once; a layout can be cut short", "[model][session]") {
  const std::string tree = testing::generate_tree("ranking_session_tile", "tile:xla", 1, 29, 200, 8);
  const TpuGraph tile = load_tpu_graph(find_npz_files(tree).front());
  auto model = small_model(tile);
  RankingSession session(std::make_unique<TpuGraph>(tile), model, "small tile");
  run_to_end(session);
  CHECK(session.ranking().costs() == model->predict(model->prepare(tile)));
  CHECK_FALSE(session.explainable());
  if (session.ranking().metrics().labelled) {
    CHECK(session.ranking().metrics().tile_score == tile_score(config_ranking_targets(tile), session.ranking().order()));
  }
  CHECK(session.state()["kind"] == "tile");

  const std::string layout_tree = testing::generate_tree("ranking_session_early", "layout:xla:random", 1, 31, 600, 8);
  const TpuGraph graph = load_tpu_graph(find_npz_files(layout_tree).front());
  RankingSession early(std::make_unique<TpuGraph>(graph), small_model(graph), "small");
  early.step(0);  // one unit
  early.drawing().finish_early();
  CHECK(early.drawing().done());
  CHECK(early.drawing().layered().x.size() == static_cast<size_t>(graph.node_count));
  CHECK(early.progress().stage == "ranking");
}

TEST_CASE("durations and changes read with their units", "[session]") {
  CHECK(format_duration(8.521e-6) == "8.521 us");
  CHECK(format_duration(0.9108) == "910.8 ms");
  CHECK(format_duration(23.27) == "23.27 s");
  CHECK(format_duration(4.2e-8) == "42 ns");
  CHECK(format_duration(0) == "0 s");
  CHECK(format_duration(5400) == "5400 s");
  CHECK(format_change(0.969) == "-3.1%");
  CHECK(format_change(1.004) == "+0.4%");
  CHECK(format_change(1.0) == "0.0%");
}

TEST_CASE("round ticks cover a range in steps of 1, 2 or 5 times a power of ten", "[session]") {
  const std::vector<double> narrow = round_ticks(0.9109, 0.9328);
  REQUIRE(narrow.size() == 4);
  CHECK(narrow.front() == Approx(0.915));
  CHECK(narrow.back() == Approx(0.93));
  CHECK(round_ticks(23.27, 70.95) == std::vector<double>{30, 40, 50, 60, 70});
  CHECK(round_ticks(1, 481).size() <= 6);
  CHECK(round_ticks(3, 3) == std::vector<double>{3});
  CHECK(round_ticks(5, 1).empty());
}

TEST_CASE("the predicted-vs-measured plot has units: runtime change when calibrated, rank when not", "[session]") {
  const std::vector<float> costs = {0.0f, -0.5f, 0.5f, 1.0f};
  const std::vector<int64_t> runtimes = {910'000'000, 905'000'000, 920'000'000, 932'000'000};
  const std::vector<int32_t> order = {1, 0, 2, 3};
  RuntimeCalibration none;
  const ScatterAxes ranks = scatter_axes(costs, runtimes, order, none, 3000, 0.5, 1.0);
  CHECK(ranks.x_label == "predicted rank (1 = the model's pick)");
  CHECK_THAT(ranks.x_note, Catch::Contains("no predicted runtimes") && Catch::Contains("no runtime calibration"));
  CHECK(ranks.x[1] == 0.0f);  // the model's pick is rank 1, at the left
  CHECK(ranks.x[3] == 1.0f);
  CHECK(ranks.y_label == "measured runtime (log scale)");
  REQUIRE_FALSE(ranks.y_ticks.empty());
  CHECK_THAT(ranks.y_ticks.front().label, Catch::EndsWith(" ms"));
  CHECK(ranks.title == "4 configs: Kendall tau 0.500, top-5 slowdown 1.000");
  RuntimeCalibration fitted;
  fitted.log_runtime_per_score = 0.02;
  fitted.configs = 1000;
  fitted.graphs = 10;
  fitted.cost_range = 5;
  fitted.residual_sd = 0.01;
  fitted.nodes_min = 1000;
  fitted.nodes_max = 4000;
  const ScatterAxes changes = scatter_axes(costs, runtimes, order, fitted, 3000, 0.5, 1.0);
  CHECK(changes.x_label == "predicted runtime vs config 0");
  CHECK(changes.x_note.empty());
  bool labelled_zero = false;
  for (const AxisTick& tick : changes.x_ticks) labelled_zero = labelled_zero || tick.label == "config 0";
  CHECK(labelled_zero);
  for (float x : changes.x) CHECK((x >= 0 && x <= 1));
  // A graph unlike the calibration's: ranks again, and the note says why.
  CHECK_THAT(scatter_axes(costs, runtimes, order, fitted, 20000, 0.5, 1.0).x_note, Catch::Contains("unlike the graphs"));
}
