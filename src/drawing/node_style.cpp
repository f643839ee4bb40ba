#include "drawing/node_style.h"

#include <algorithm>
#include <cmath>

namespace graphcost {
namespace {

uint8_t to_byte(float unit) { return static_cast<uint8_t>(unit * 255); }

// HSV (each 0..1) to RGB, as Dear ImGui's ColorConvertHSVtoRGB.
void hsv_to_rgb(float h, float s, float v, float& r, float& g, float& b) {
  if (s == 0.0f) {
    r = g = b = v;
    return;
  }
  h = std::fmod(h, 1.0f) / (60.0f / 360.0f);
  const int i = static_cast<int>(h);
  const float f = h - static_cast<float>(i);
  const float p = v * (1.0f - s), q = v * (1.0f - s * f), t = v * (1.0f - s * (1.0f - f));
  switch (i) {
    case 0:
      r = v, g = t, b = p;
      break;
    case 1:
      r = q, g = v, b = p;
      break;
    case 2:
      r = p, g = v, b = t;
      break;
    case 3:
      r = p, g = q, b = v;
      break;
    case 4:
      r = t, g = p, b = v;
      break;
    default:
      r = v, g = p, b = q;
      break;
  }
}

}  // namespace

void category_colour(int index, uint8_t& r, uint8_t& g, uint8_t& b) {
  const float hue = std::fmod(0.13f + 0.618034f * static_cast<float>(index), 1.0f);
  float fr, fg, fb;
  hsv_to_rgb(hue, 0.45f, 0.92f, fr, fg, fb);
  r = to_byte(fr), g = to_byte(fg), b = to_byte(fb);
}

void diverging_colour(float t, uint8_t& r, uint8_t& g, uint8_t& b) {
  t = std::max(-1.0f, std::min(1.0f, t));
  const float grey = 0.85f;
  r = to_byte(t > 0 ? grey + (0.86f - grey) * t : grey + (0.20f - grey) * -t);
  g = to_byte(t > 0 ? grey + (0.18f - grey) * t : grey + (0.40f - grey) * -t);
  b = to_byte(t > 0 ? grey + (0.15f - grey) * t : grey + (0.85f - grey) * -t);
}

std::vector<NodeStyle> style_nodes(const TpuGraph& graph, const StyleInputs& inputs) {
  const size_t n = static_cast<size_t>(graph.node_count);
  std::vector<char> configurable(n, 0);
  for (int32_t v : graph.configurable_nodes) configurable[static_cast<size_t>(v)] = 1;
  const bool explaining = inputs.colouring == Colouring::Contribution || inputs.colouring == Colouring::Compare;
  const std::vector<float>* contribution =
      explaining && inputs.contribution != nullptr && inputs.contribution->size() == n ? inputs.contribution : nullptr;
  float largest = 1e-12f;
  if (contribution != nullptr) {
    for (float c : *contribution) largest = std::max(largest, std::fabs(c));
  }
  std::vector<NodeStyle> styles(n);
  for (size_t v = 0; v < n; ++v) {
    NodeStyle& style = styles[v];
    switch (inputs.colouring) {
      case Colouring::Opcode:
        category_colour(graph.node_opcodes[v], style.r, style.g, style.b);
        break;
      case Colouring::Section:
        category_colour(inputs.section_of != nullptr ? (*inputs.section_of)[v] : 0, style.r, style.g, style.b);
        break;
      case Colouring::Configurable:
        if (configurable[v]) {
          style.r = 235, style.g = 140, style.b = 30;
          style.grow = std::max(2.0f, inputs.legible_grow);
        } else {
          style.r = style.g = style.b = 215;
        }
        break;
      case Colouring::Contribution:
      case Colouring::Compare:
        if (contribution != nullptr) {
          const float t = (*contribution)[v] / largest;  // square root: 1% of the largest is still visibly tinted
          diverging_colour(std::copysign(std::sqrt(std::fabs(t)), t), style.r, style.g, style.b);
          if (t == 0) {
            style.a = 90;  // not explained: faded
          } else {
            style.grow = std::max(3.0f, inputs.legible_grow);
          }
        } else {
          style.r = style.g = style.b = 215;
        }
        break;
    }
    if (inputs.neighbourhood != nullptr && !inputs.neighbourhood->empty() && !(*inputs.neighbourhood)[v]) style.a = 40;
    if (static_cast<int32_t>(v) == inputs.selected_node) style.r = style.g = style.b = 20;
  }
  return styles;
}

}  // namespace graphcost
