// GraphRenderer: draws a laid-out graph with WebGL2 instancing (shaders/ node.* and edge.*): one
// instance per node (rounded box) and one per edge (segment), two draw calls per view. The caller
// owns the geometry and colours; upload once, recolour cheaply, draw into any viewport (the main
// view and the minimap share the buffers).
#pragma once

#include <cstdint>
#include <vector>

#include "drawing/camera.h"

namespace graphcost::app {

struct NodeInstance {
  float x, y, half_width, half_height;  // world units
  uint8_t r, g, b, a;
};
struct EdgeInstance {
  float x0, y0, x1, y1;  // world units
  uint8_t r, g, b, a;
};

class GraphRenderer {
 public:
  // Compiles the shaders (throws std::runtime_error with the GL log on failure).
  GraphRenderer();
  ~GraphRenderer();
  GraphRenderer(const GraphRenderer&) = delete;
  GraphRenderer& operator=(const GraphRenderer&) = delete;

  // `backdrop`: boxes drawn under the edges (the open boxes' frames of the nested view).
  void upload(const std::vector<NodeInstance>& nodes, const std::vector<EdgeInstance>& edges,
              const std::vector<NodeInstance>& backdrop = {});
  // Viewport in device pixels, origin bottom-left (GL convention).
  void draw(const Camera& camera, int x, int y, int width, int height, float edge_width, bool edges = true) const;

 private:
  unsigned node_program_ = 0, edge_program_ = 0;
  unsigned node_vao_ = 0, edge_vao_ = 0, backdrop_vao_ = 0;
  unsigned quad_buffer_ = 0, segment_quad_buffer_ = 0, node_buffer_ = 0, edge_buffer_ = 0, backdrop_buffer_ = 0;
  int node_count_ = 0, edge_count_ = 0, backdrop_count_ = 0;
};

}  // namespace graphcost::app
