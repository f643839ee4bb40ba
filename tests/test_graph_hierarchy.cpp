// GraphHierarchy: the app's nested boxes, natively: the tree, the local layout, open and close.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "drawing/graph_hierarchy.h"

using namespace graphcost;

namespace {

struct Box {
  float x0, y0, x1, y1;
};

Box item_box(const GraphHierarchy& h, const HierarchyItem& item) {
  if (item.cluster) {
    const DrawingBox b = h.box_of(item.id);
    return {b.min_x, b.min_y, b.max_x, b.max_y};
  }
  float x = 0, y = 0;
  REQUIRE(h.node_centre(item.id, x, y));
  return {x - GraphHierarchy::kNodeWidth / 2, y - GraphHierarchy::kNodeHeight / 2, x + GraphHierarchy::kNodeWidth / 2,
          y + GraphHierarchy::kNodeHeight / 2};
}

bool overlap(const Box& a, const Box& b) {
  return a.x0 < b.x1 - 1e-4f && b.x0 < a.x1 - 1e-4f && a.y0 < b.y1 - 1e-4f && b.y0 < a.y1 - 1e-4f;
}
bool inside(const Box& inner, const Box& outer) {
  return inner.x0 >= outer.x0 - 1e-4f && inner.x1 <= outer.x1 + 1e-4f && inner.y0 >= outer.y0 - 1e-4f && inner.y1 <= outer.y1 + 1e-4f;
}

// Every box in view (closed boxes and nodes) clear of every other, and inside each open box that
// holds it; open boxes nested or apart.
void check_view(const GraphHierarchy& h) {
  const auto& visible = h.visible();
  for (size_t i = 0; i < visible.size(); ++i) {
    for (size_t j = i + 1; j < visible.size(); ++j) {
      INFO("items " << i << " and " << j);
      CHECK_FALSE(overlap(item_box(h, visible[i]), item_box(h, visible[j])));
    }
    // Its open ancestors hold it.
    int32_t parent = visible[i].cluster ? h.cluster(visible[i].id).parent : h.cluster_of(visible[i].id);
    for (; parent > 0; parent = h.cluster(parent).parent) {
      const DrawingBox b = h.box_of(parent);
      CHECK(inside(item_box(h, visible[i]), {b.min_x, b.min_y, b.max_x, b.max_y}));
    }
  }
}

// Nodes 0..n-1 in a chain, no names.
HierarchyInput chain(int32_t n, std::vector<std::pair<int32_t, int32_t>>& edges, int max_children) {
  HierarchyInput input;
  input.node_count = n;
  for (int32_t v = 0; v + 1 < n; ++v) edges.emplace_back(v, v + 1);
  input.edges = &edges;
  input.rank.resize(static_cast<size_t>(n));
  std::iota(input.rank.begin(), input.rank.end(), 0);
  input.paths.resize(static_cast<size_t>(n));
  input.max_children = max_children;
  return input;
}

}  // namespace

TEST_CASE("hierarchy: groups from paths, single-child chains merged, every node in one place", "[drawing][hierarchy]") {
  // main/{jit(f)/layer_0/{0,1}, jit(f)/layer_1/{2,3}}, body/{4}, and node 5 at the top.
  std::vector<std::pair<int32_t, int32_t>> edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 3}, {5, 0}};
  HierarchyInput input;
  input.node_count = 6;
  input.edges = &edges;
  input.rank = {1, 2, 3, 4, 5, 0};
  input.paths = {{"main", "jit(f)", "layer_0"},
                 {"main", "jit(f)", "layer_0"},
                 {"main", "jit(f)", "layer_1"},
                 {"main", "jit(f)", "layer_1"},
                 {"body"},
                 {}};
  const GraphHierarchy h(input);
  std::map<std::string, int32_t> by_title;
  for (size_t c = 1; c < h.clusters().size(); ++c) by_title[h.clusters()[c].title] = static_cast<int32_t>(c);
  REQUIRE(by_title.count("main/jit(f)") == 1);  // "main" held only "jit(f)": merged
  REQUIRE(by_title.count("layer_0") == 1);
  REQUIRE(by_title.count("body") == 1);
  CHECK(h.cluster(by_title["main/jit(f)"]).node_count == 4);
  CHECK(h.cluster(by_title["main/jit(f)"]).items.size() == 2);
  CHECK(h.cluster(0).node_count == 6);
  CHECK(h.cluster_of(5) == 0);
  CHECK(h.cluster_of(0) == by_title["layer_0"]);
  // In view at first: the root's items, in topological order (node 5 has rank 0).
  const std::vector<HierarchyItem> top = h.visible();
  REQUIRE(top.size() == 3);
  CHECK(h.cluster(0).items.front() == HierarchyItem{false, 5});
  // Edges between them, each drawn once with its count: 5->main (1), main->body (1, from 3->4).
  std::map<std::pair<uint32_t, uint32_t>, int32_t> weights;
  int32_t total = 0;
  for (const HierarchyEdge& e : h.edges()) total += e.weight;
  CHECK(total == 2);
  CHECK(h.edges().size() == 2);
  check_view(h);
}

TEST_CASE("hierarchy: big groups split into parts of consecutive layers, never more than max_children", "[drawing][hierarchy]") {
  std::vector<std::pair<int32_t, int32_t>> edges;
  const GraphHierarchy h(chain(1000, edges, 10));
  std::vector<int32_t> seen(1000, 0);
  for (size_t c = 0; c < h.clusters().size(); ++c) {
    const HierarchyCluster& cluster = h.clusters()[c];
    CHECK(cluster.items.size() <= 10);
    int32_t count = 0;
    for (const HierarchyItem& item : cluster.items) {
      count += item.cluster ? h.cluster(item.id).node_count : 1;
      if (!item.cluster) ++seen[static_cast<size_t>(item.id)];
      if (item.cluster) CHECK(h.cluster(item.id).parent == static_cast<int32_t>(c));
    }
    CHECK(count == cluster.node_count);
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int32_t s) { return s == 1; }));
  CHECK(h.visible().size() == 10);
  CHECK(h.cluster(h.visible().front().id).title == "layers 0-99");
  // A chain of ten parts is wrapped into columns rather than drawn as one tall column.
  CHECK(h.width() > h.height() * 0.5f);
  int32_t total = 0;
  for (const HierarchyEdge& e : h.edges()) total += e.weight;
  CHECK(total == 9);  // the 9 edges between consecutive parts
}

TEST_CASE("hierarchy: open and close in place; closing gives back the same picture", "[drawing][hierarchy]") {
  std::vector<std::pair<int32_t, int32_t>> edges;
  GraphHierarchy h(chain(400, edges, 8));
  auto places = [&] {
    std::vector<std::pair<float, float>> p;
    for (const HierarchyItem& item : h.visible()) {
      const Box b = item_box(h, item);
      p.emplace_back(b.x0, b.y0);
    }
    return p;
  };
  const auto before = places();
  const std::vector<HierarchyItem> top = h.visible();
  const int32_t opened = top[3].id;
  REQUIRE(h.expand(opened));
  CHECK_FALSE(h.expand(opened));
  CHECK(h.frames() == std::vector<int32_t>{opened});
  CHECK(h.visible().size() == top.size() - 1 + h.cluster(opened).items.size());
  check_view(h);
  // A box inside a closed box does not open (nothing would show it); closing a closed one is a no-op.
  const int32_t hidden = h.cluster(top[4].id).items[1].id;
  CHECK_FALSE(h.expand(hidden));
  CHECK_FALSE(h.collapse(hidden));
  CHECK_FALSE(h.cluster(hidden).expanded);
  // A second level inside the first.
  const int32_t inner = h.cluster(opened).items[2].id;
  REQUIRE(h.expand(inner));
  CHECK(h.frames() == std::vector<int32_t>{opened, inner});
  check_view(h);
  // The title bar of an open box is where a click closes it.
  const DrawingBox frame = h.box_of(opened);
  const GraphHierarchy::Hit header = h.hit((frame.min_x + frame.max_x) / 2, frame.min_y + 0.3f);
  CHECK(header.in_header);
  CHECK(header.item == HierarchyItem{true, opened});
  REQUIRE(h.collapse(opened));
  CHECK_FALSE(h.cluster(inner).expanded);  // closing closes what is inside
  CHECK(places() == before);
  CHECK(h.frames().empty());
  // A click on a closed box finds it.
  const HierarchyCluster& closed = h.cluster(top[5].id);
  CHECK(h.hit(closed.x, closed.y).item == top[5]);
  CHECK_FALSE(h.hit(closed.x, closed.y).in_header);
  CHECK(h.hit(-100, -100).item.id == -1);
}

TEST_CASE("hierarchy: reveal opens the way to a node; sums over subtrees", "[drawing][hierarchy]") {
  std::vector<std::pair<int32_t, int32_t>> edges;
  GraphHierarchy h(chain(500, edges, 6));
  float x = 0, y = 0;
  CHECK_FALSE(h.node_centre(321, x, y));
  CHECK(h.representative(321).cluster);
  h.reveal(321);
  REQUIRE(h.node_centre(321, x, y));
  CHECK(h.representative(321) == HierarchyItem{false, 321});
  CHECK(h.hit(x, y).item == HierarchyItem{false, 321});
  check_view(h);
  std::vector<float> values(500, 0.0f);
  values[321] = 2.5f, values[0] = -1.0f;
  const std::vector<double> sums = h.cluster_sums(values);
  CHECK(sums[0] == 1.5);
  for (int32_t k = h.cluster_of(321); k > 0; k = h.cluster(k).parent) CHECK(sums[static_cast<size_t>(k)] == 2.5);
  CHECK(h.subtree_nodes(0).size() == 500);
  const std::vector<int32_t> part = h.subtree_nodes(h.cluster_of(321));
  CHECK(std::find(part.begin(), part.end(), 321) != part.end());
}

TEST_CASE("hierarchy: inconsistent input is refused", "[drawing][hierarchy]") {
  std::vector<std::pair<int32_t, int32_t>> edges = {{0, 7}};
  HierarchyInput input;
  input.node_count = 2;
  input.edges = &edges;
  input.rank = {0, 1};
  input.paths = {{}, {}};
  CHECK_THROWS_AS(GraphHierarchy(input), std::invalid_argument);
  edges = {{0, 1}};
  input.rank = {0};
  CHECK_THROWS_AS(GraphHierarchy(input), std::invalid_argument);
}

TEST_CASE("hierarchy: unconnected named groups (an imported module's computations) wrap into rows, parts named by their ends",
          "[drawing][hierarchy]") {
  std::vector<std::pair<int32_t, int32_t>> edges;
  HierarchyInput input;
  input.node_count = 200;
  input.edges = &edges;
  for (int32_t v = 0; v < 200; ++v) {
    if (v % 2 == 1) edges.emplace_back(v - 1, v);
    input.rank.push_back(v % 2);
    input.paths.push_back({"comp." + std::to_string(v / 2)});
  }
  input.max_children = 10;
  const GraphHierarchy h(input);
  REQUIRE(h.visible().size() == 10);
  const HierarchyCluster& first = h.cluster(h.visible().front().id);
  CHECK(first.part);
  CHECK(first.title == "comp.0 .. comp.9");
  CHECK(h.width() < 4 * h.height());  // not one long row
  check_view(h);
  GraphHierarchy opened(input);
  REQUIRE(opened.expand(opened.visible().front().id));
  check_view(opened);
}
