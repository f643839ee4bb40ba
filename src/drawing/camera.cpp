#include "drawing/camera.h"

#include <algorithm>

namespace graphcost {

void DrawingBox::add(float x, float y) {
  min_x = std::min(min_x, x), max_x = std::max(max_x, x);
  min_y = std::min(min_y, y), max_y = std::max(max_y, y);
}

void Camera::to_screen(float x, float y, int width, int height, float& screen_x, float& screen_y) const {
  screen_x = (x - centre_x) * scale + static_cast<float>(width) / 2;
  screen_y = (y - centre_y) * scale + static_cast<float>(height) / 2;
}

void Camera::to_world(float screen_x, float screen_y, int width, int height, float& x, float& y) const {
  x = (screen_x - static_cast<float>(width) / 2) / scale + centre_x;
  y = (screen_y - static_cast<float>(height) / 2) / scale + centre_y;
}

void Camera::zoom_about(float factor, float screen_x, float screen_y, int width, int height) {
  float before_x, before_y, after_x, after_y;
  to_world(screen_x, screen_y, width, height, before_x, before_y);
  scale = std::max(1e-3f, std::min(scale * factor, 2000.0f));
  to_world(screen_x, screen_y, width, height, after_x, after_y);
  centre_x += before_x - after_x;
  centre_y += before_y - after_y;
}

Camera Camera::framing(const DrawingBox& box, int width, int height, float fill, float margin, const Camera& otherwise) {
  if (box.empty()) return otherwise;
  Camera camera;
  camera.centre_x = (box.min_x + box.max_x) / 2;
  camera.centre_y = (box.min_y + box.max_y) / 2;
  camera.scale = fill * std::min(static_cast<float>(width) / std::max(1.0f, box.max_x - box.min_x + margin),
                                 static_cast<float>(height) / std::max(1.0f, box.max_y - box.min_y + margin));
  return camera;
}

}  // namespace graphcost
