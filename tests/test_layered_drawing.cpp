// The layered layout: every kept edge points down, nodes of a layer never overlap, sources sit
// just above their first use, high fan-out producers become stubs, cycles and bad ids are handled,
// progress can cancel, results are deterministic, the step-at-a-time job gives the same layout and
// can stop early with a valid one; on the real 21,918-node nlp graph the same
// invariants hold (its timing is a benchmark, bench/bench_layout).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "common/internal_error.h"
#include "data/tpu_graph.h"
#include "drawing/layered_drawing.h"
#include "test_support.h"

using namespace graphcost;

namespace {

using Edges = std::vector<std::pair<int32_t, int32_t>>;

void check_invariants(const LayeredDrawing& layout, int32_t nodes, const Edges& edges, const DrawingOptions& options) {
  REQUIRE_FALSE(layout.cancelled);
  REQUIRE(layout.layer.size() == static_cast<size_t>(nodes));
  // Kept edges (not from stubs, not closing a cycle) go from a higher layer to a lower one.
  int64_t upward = 0;
  for (const auto& [from, to] : edges) {
    if (from == to || layout.stub[static_cast<size_t>(from)]) continue;
    if (layout.layer[static_cast<size_t>(from)] >= layout.layer[static_cast<size_t>(to)]) ++upward;
  }
  CHECK(upward == layout.ignored_edges);
  // Within a layer: positions 0..k-1, x increasing by at least node width + gap.
  std::map<int32_t, std::map<int32_t, int32_t>> by_layer;  // layer -> position -> node
  for (int32_t v = 0; v < nodes; ++v) by_layer[layout.layer[static_cast<size_t>(v)]][layout.position[static_cast<size_t>(v)]] = v;
  const float spacing = options.node_width + options.horizontal_gap;
  for (const auto& [layer, row] : by_layer) {
    int32_t expected = 0, previous = -1;
    for (const auto& [position, v] : row) {
      REQUIRE(position == expected++);
      CHECK(std::abs(layout.y[static_cast<size_t>(v)] - layout.y[static_cast<size_t>(row.begin()->second)]) < 1e-6f);
      if (previous >= 0) CHECK(layout.x[static_cast<size_t>(v)] - layout.x[static_cast<size_t>(previous)] >= spacing - 1e-3f);
      previous = v;
    }
  }
  size_t counted = 0;
  for (const auto& [layer, row] : by_layer) counted += row.size();
  CHECK(counted == static_cast<size_t>(nodes));
}

}  // namespace

TEST_CASE("a small DAG is layered, ordered and spaced", "[layout]") {
  // 0 -> 1 -> 3, 0 -> 2 -> 3, 4 (a source used only by 3), 5 isolated.
  const Edges edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {4, 3}};
  const DrawingOptions options;
  const LayeredDrawing layout = draw_layered(6, edges, options);
  check_invariants(layout, 6, edges, options);
  CHECK(layout.layer == std::vector<int32_t>{0, 1, 1, 2, 1, 0});  // 4 promoted next to its use
  CHECK(layout.layer_count == 3);
  CHECK(layout.ignored_edges == 0);
  // The diamond's join sits between its two inputs.
  CHECK(layout.x[3] > std::min(layout.x[1], layout.x[2]));
  CHECK(layout.x[3] < std::max(layout.x[1], layout.x[2]) + 1.0f);
  // Same input, same layout.
  const LayeredDrawing again = draw_layered(6, edges, options);
  CHECK(again.x == layout.x);
  CHECK(again.y == layout.y);
}

TEST_CASE("high fan-out producers become stubs placed above their first use", "[layout]") {
  DrawingOptions options;
  options.stub_fanout = 3;
  Edges edges = {{1, 10}};  // 1 -> chain 10..15
  for (int32_t i = 11; i <= 15; ++i) edges.emplace_back(i - 1, i);
  for (int32_t i = 11; i <= 15; ++i) edges.emplace_back(0, i);  // 0 feeds 5 of them
  const LayeredDrawing layout = draw_layered(16, edges, options);
  check_invariants(layout, 16, edges, options);
  CHECK(layout.stub[0] == 1);
  CHECK(layout.stub[10] == 0);
  CHECK(layout.layer[11] == 2);
  CHECK(layout.layer[0] == 1);  // just above its first use, not at the top
  CHECK(layout.layer[15] == 6);
}

TEST_CASE("cycles are broken, bad ids refused, progress can cancel", "[layout]") {
  const Edges cycle = {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 3}};
  const DrawingOptions options;
  const LayeredDrawing layout = draw_layered(4, cycle, options);
  check_invariants(layout, 4, cycle, options);
  CHECK(layout.ignored_edges == 1);
  CHECK_THROWS_AS(draw_layered(3, {{0, 3}}), InternalError);
  CHECK_THROWS_AS(draw_layered(3, {{-1, 0}}), InternalError);
  int calls = 0;
  const LayeredDrawing stopped = draw_layered(4, cycle, options, [&](double, const char*) { return ++calls < 2; });
  CHECK(stopped.cancelled);
  CHECK(calls == 2);
  CHECK(draw_layered(0, {}).layer_count == 0);
}

TEST_CASE("the layout job steps to draw_layered's result and can stop early with a valid layout", "[layout]") {
  // A layered random DAG (every edge from a lower id to a higher one) with some wide producers.
  Edges edges;
  uint32_t seed = 12345;
  auto next = [&](uint32_t bound) {
    seed = seed * 1664525u + 1013904223u;  // a fixed LCG: the same graph everywhere
    return (seed >> 8) % bound;
  };
  const int32_t nodes = 400;
  for (int32_t v = 1; v < nodes; ++v) {
    const int32_t inputs = 1 + static_cast<int32_t>(next(3));
    for (int32_t i = 0; i < inputs; ++i) edges.emplace_back(static_cast<int32_t>(next(static_cast<uint32_t>(v))), v);
  }
  const DrawingOptions options;
  const LayeredDrawing whole = draw_layered(nodes, edges, options);

  LayeredDrawingJob job(nodes, edges, options);
  CHECK_THROWS_AS(job.take(), InternalError);
  std::vector<double> fractions = {job.fraction()};
  std::vector<std::string> stages = {job.stage()};
  while (!job.done()) {
    job.step();
    fractions.push_back(job.fraction());
    stages.push_back(job.stage());
  }
  CHECK(std::is_sorted(fractions.begin(), fractions.end()));
  CHECK(fractions.front() == 0.0);
  CHECK(fractions.back() == 1.0);
  CHECK(stages.back() == "done");
  const size_t units = fractions.size() - 1;
  CHECK(units == 3 + 2 * static_cast<size_t>(options.sweeps) + static_cast<size_t>(options.coordinate_rounds));
  const LayeredDrawing stepped = job.take();
  CHECK(stepped.x == whole.x);
  CHECK(stepped.y == whole.y);
  CHECK(stepped.position == whole.position);
  CHECK_FALSE(stepped.stopped_early);

  // Stopped after any number of units, the layout is complete and valid (layers as the whole run's).
  for (size_t after = 0; after <= units; ++after) {
    LayeredDrawingJob early(nodes, edges, options);
    for (size_t i = 0; i < after; ++i) early.step();
    early.finish_early();
    REQUIRE(early.done());
    const LayeredDrawing rough = early.take();
    INFO("stopped after " << after << " units");
    check_invariants(rough, nodes, edges, options);
    CHECK(rough.layer == whole.layer);
    CHECK(rough.stopped_early == (after < units));
    CHECK(rough.width > 0);
  }
}

TEST_CASE("the 21,918-node nlp graph lays out with the same invariants", "[layout][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const TpuGraph graph = load_tpu_graph(testing::real_file("npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz"));
  Edges edges;
  for (const Edge& edge : graph.edges) edges.emplace_back(edge.producer, edge.consumer);
  const DrawingOptions options;
  std::vector<double> fractions;
  const LayeredDrawing layout = draw_layered(graph.node_count, edges, options, [&](double fraction, const char*) {
    fractions.push_back(fraction);
    return true;
  });
  check_invariants(layout, graph.node_count, edges, options);
  CHECK(layout.ignored_edges == 0);  // a real HLO graph is acyclic
  CHECK(std::is_sorted(fractions.begin(), fractions.end()));
  CHECK(fractions.back() == 1.0);
  CHECK(layout.layer_count > 10);
}
