// NodeStyle: how the browser app draws each node of a laid-out graph under the chosen colouring:
// an RGBA colour and a size factor. GL-free, so the choices are tested natively; web/app only
// uploads them.
//   Opcode        a stable colour per opcode          Section  a colour per node_splits section
//   Configurable  configurable nodes orange and large, the rest grey
//   Contribution / Compare  red adds predicted cost, blue saves it (square-root scale of the
//                 largest), unexplained nodes faded; explained nodes large
// Nodes outside the k-hop neighbourhood fade; the selected node is black.
#pragma once

#include <cstdint>
#include <vector>

#include "data/tpu_graph.h"

namespace graphcost {

enum class Colouring { Opcode, Configurable, Section, Contribution, Compare };

struct NodeStyle {
  uint8_t r = 200, g = 200, b = 200, a = 255;
  float grow = 1;  // size factor over DrawingOptions' node box
};

struct StyleInputs {
  Colouring colouring = Colouring::Opcode;
  const std::vector<int32_t>* section_of = nullptr;  // node -> section (Section)
  const std::vector<float>* contribution = nullptr;  // node -> contribution; null: none yet
  const std::vector<char>* neighbourhood = nullptr;  // node -> inside; null or empty: all inside
  int32_t selected_node = -1;
  // The size factor that makes an emphasised node legible at the current zoom (at least 8 CSS
  // pixels); emphasised nodes grow by max(2 or 3, this).
  float legible_grow = 1;
};

std::vector<NodeStyle> style_nodes(const TpuGraph& graph, const StyleInputs& inputs);

// A stable, distinct colour per category index (golden-ratio hue steps), muted for a light background.
void category_colour(int index, uint8_t& r, uint8_t& g, uint8_t& b);
// Diverging blue (t = -1) - grey (0) - red (1); t is clamped to [-1, 1].
void diverging_colour(float t, uint8_t& r, uint8_t& g, uint8_t& b);

}  // namespace graphcost
