// Camera: which part of a drawing a viewport shows, as the drawing point at the viewport's centre
// and device pixels per drawing unit. Screen points are device pixels from the viewport's top-left.
// GL-free: the app's renderer draws through it, its pan, zoom and framing math is tested natively.
#pragma once

namespace graphcost {

// An axis-aligned box of drawing coordinates; empty when min_x > max_x.
struct DrawingBox {
  float min_x = 1e30f, max_x = -1e30f, min_y = 1e30f, max_y = -1e30f;
  bool empty() const { return min_x > max_x; }
  void add(float x, float y);
};

struct Camera {
  float centre_x = 0, centre_y = 0;
  float scale = 1;  // device pixels per drawing unit

  void to_screen(float x, float y, int width, int height, float& screen_x, float& screen_y) const;
  void to_world(float screen_x, float screen_y, int width, int height, float& x, float& y) const;
  // Zooms by `factor` keeping the drawing point under (screen_x, screen_y) where it is; the scale
  // stays within [1e-3, 2000].
  void zoom_about(float factor, float screen_x, float screen_y, int width, int height);
  // The camera centred on `box`, showing it with `margin` drawing units around at `fill` (0..1) of
  // the viewport's tighter side. An empty box leaves the camera as it is.
  static Camera framing(const DrawingBox& box, int width, int height, float fill, float margin, const Camera& otherwise);
};

}  // namespace graphcost
