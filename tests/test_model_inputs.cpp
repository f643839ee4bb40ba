// The model's inputs: pruned graph views with CSR neighbour lists, and normalised features.
#include <catch2/catch.hpp>

#include <cmath>

#include "common/input_error.h"
#include "model/feature_encoder.h"
#include "model/graph_view.h"
#include "test_support.h"

using namespace graphcost;

namespace {

// A chain 0 <- 1 <- 2 <- 3 <- 4 (each node reads the previous one) with node 2 configurable.
TpuGraph chain() {
  TpuGraph graph;
  graph.kind = GraphKind::Layout;
  graph.node_count = 5;
  graph.node_features.assign(5 * 140, 0.0f);
  graph.node_opcodes.assign(5, 2);
  for (int32_t i = 1; i < 5; ++i) graph.edges.push_back({i, i - 1});
  graph.configurable_nodes = {2};
  return graph;
}

}  // namespace

TEST_CASE("graph views: whole graphs and k-hop pruning", "[model]") {
  const TpuGraph graph = chain();
  const GraphView whole = make_graph_view(graph);
  CHECK(whole.size() == 5);
  CHECK(whole.configurable == std::vector<int32_t>{2});
  // Node 3 reads node 2; node 2 is read by node 3.
  CHECK(whole.producers.neighbours[static_cast<size_t>(whole.producers.offsets[3])] == 2);
  CHECK(whole.consumers.neighbours[static_cast<size_t>(whole.consumers.offsets[2])] == 3);
  CHECK(whole.producers.offsets[1] - whole.producers.offsets[0] == 0);  // node 0 reads nothing

  const GraphView one_hop = make_graph_view(graph, 1);
  CHECK(one_hop.nodes == std::vector<int32_t>{1, 2, 3});
  CHECK(one_hop.configurable == std::vector<int32_t>{1});
  CHECK(one_hop.producers.neighbours.size() == 2);  // 2 <- 1 and 3 <- 2 survive
  CHECK(make_graph_view(graph, 0).nodes == std::vector<int32_t>{2});
}

TEST_CASE("pruning a real layout graph keeps every configurable node", "[model][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph graph = load_tpu_graph(testing::real_file("npz/layout/xla/default/train/unet3d.npz"));
  const GraphView pruned = make_graph_view(graph, 1);
  CHECK(pruned.size() < graph.node_count / 2);
  REQUIRE(pruned.configurable.size() == graph.configurable_nodes.size());
  for (size_t i = 0; i < pruned.configurable.size(); ++i) {
    CHECK(pruned.nodes[static_cast<size_t>(pruned.configurable[i])] == graph.configurable_nodes[i]);
  }
}

TEST_CASE("layout columns are re-padded with -1 beyond the rank, then log-transformed", "[model]") {
  float raw[140] = {};
  raw[21] = 128;  // shape (128, 64): rank 2
  raw[22] = 64;
  raw[134] = 1;  // minor_to_major {1, 0}, then the file's 0 padding
  raw[135] = 0;
  float out[140];
  transform_node_features(raw, out);
  CHECK(out[21] == Approx(std::log1p(128.0f)));
  CHECK(out[134] == Approx(std::log1p(1.0f)));
  CHECK(out[135] == 0.0f);                       // a real dimension index 0 stays 0
  CHECK(out[136] == Approx(-std::log1p(1.0f)));  // padding becomes -1 -> -log 2
  CHECK(out[139] == Approx(-std::log1p(1.0f)));
}

TEST_CASE("feature statistics standardise training columns and round-trip through JSON", "[model][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph a = load_tpu_graph(testing::real_file("npz/layout/xla/default/train/unet3d.npz"));
  const TpuGraph b = load_tpu_graph(testing::real_file("npz/layout/xla/random/train/openai_v0_rnn_optimized.npz"));
  const FeatureStatistics statistics = fit_feature_statistics({&a, &b});
  const nn::Matrix encoded = encode_node_features(a, make_graph_view(a), statistics);
  REQUIRE(encoded.rows() == a.node_count);
  CHECK(statistics.node_scale[1] == 0.0f);  // element_size_in_bits is always 0: a constant column
  CHECK(encoded.col(1).isZero());
  CHECK(std::fabs(encoded.col(28).mean()) < 1.0f);  // shape product: centred (over both graphs)
  CHECK(encoded.allFinite());
  const FeatureStatistics again = FeatureStatistics::from_json(nlohmann::json::parse(statistics.to_json().dump()));
  CHECK(again.node_mean == statistics.node_mean);
  CHECK(again.node_scale == statistics.node_scale);
  nlohmann::json broken = statistics.to_json();
  broken["node_mean"].erase(0);
  CHECK_THROWS_WITH(FeatureStatistics::from_json(broken), Catch::Contains("node_mean") && Catch::Contains("140"));
  const std::vector<int32_t> ids = layout_config_ids(a, 0);
  CHECK(ids.size() == 56u * 18u);
  CHECK(*std::min_element(ids.begin(), ids.end()) >= 0);
  CHECK(*std::max_element(ids.begin(), ids.end()) <= 6);
}
