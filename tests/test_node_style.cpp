// NodeStyle: the app's colourings decided natively. Each colouring marks what it claims to mark.
#include <catch2/catch.hpp>

#include "drawing/node_style.h"

using namespace graphcost;

namespace {

TpuGraph four_nodes() {
  TpuGraph graph;
  graph.kind = GraphKind::Layout;
  graph.node_count = 4;
  graph.node_opcodes = {1, 2, 1, 3};
  graph.configurable_nodes = {1, 3};
  return graph;
}

bool same_colour(const NodeStyle& a, const NodeStyle& b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

}  // namespace

TEST_CASE("opcode and section colourings: one stable colour per category", "[layout][style]") {
  const TpuGraph graph = four_nodes();
  std::vector<NodeStyle> styles = style_nodes(graph, {});
  CHECK(same_colour(styles[0], styles[2]));  // both opcode 1
  CHECK_FALSE(same_colour(styles[0], styles[1]));
  for (const NodeStyle& s : styles) CHECK((s.a == 255 && s.grow == 1));
  const std::vector<int32_t> sections = {0, 0, 1, 1};
  StyleInputs inputs;
  inputs.colouring = Colouring::Section;
  inputs.section_of = &sections;
  styles = style_nodes(graph, inputs);
  CHECK(same_colour(styles[0], styles[1]));
  CHECK_FALSE(same_colour(styles[1], styles[2]));
  uint8_t r, g, b;
  category_colour(0, r, g, b);  // hue 0.13: a warm, muted colour
  CHECK((r > g && g > b && b > 120));
}

TEST_CASE("configurable, contribution, neighbourhood and selection", "[layout][style]") {
  const TpuGraph graph = four_nodes();
  StyleInputs inputs;
  inputs.colouring = Colouring::Configurable;
  inputs.legible_grow = 5;
  std::vector<NodeStyle> styles = style_nodes(graph, inputs);
  CHECK(styles[1].grow == 5);
  CHECK(styles[0].grow == 1);
  CHECK(styles[1].r > styles[1].b);   // orange
  CHECK(styles[0].r == styles[0].b);  // grey

  const std::vector<float> contribution = {0.0f, 0.5f, 0.0f, -0.02f};
  inputs.colouring = Colouring::Contribution;
  inputs.contribution = &contribution;
  inputs.legible_grow = 1;
  styles = style_nodes(graph, inputs);
  CHECK(styles[1].r > styles[1].b);  // costs more: red
  CHECK(styles[3].b > styles[3].r);  // saves: blue, visible although 25x smaller (square root)
  CHECK(styles[3].b - styles[3].r > 25);
  CHECK(styles[0].a == 90);  // unexplained: faded
  CHECK(styles[1].grow == 3);
  inputs.contribution = nullptr;  // no explanation yet: neutral grey, nothing emphasised
  styles = style_nodes(graph, inputs);
  CHECK((styles[1].r == 215 && styles[1].grow == 1));

  const std::vector<char> neighbourhood = {1, 1, 0, 0};
  inputs.colouring = Colouring::Opcode;
  inputs.neighbourhood = &neighbourhood;
  inputs.selected_node = 1;
  styles = style_nodes(graph, inputs);
  CHECK(styles[2].a == 40);
  CHECK(styles[0].a == 255);
  CHECK((styles[1].r == 20 && styles[1].g == 20 && styles[1].b == 20));

  uint8_t r, g, b;
  diverging_colour(7.0f, r, g, b);  // clamped to 1
  uint8_t r1, g1, b1;
  diverging_colour(1.0f, r1, g1, b1);
  CHECK((r == r1 && g == g1 && b == b1));
}
