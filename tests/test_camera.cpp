// Camera: the app's pan, zoom and framing math, natively.
#include <catch2/catch.hpp>

#include "drawing/camera.h"

using namespace graphcost;

TEST_CASE("screen and layout coordinates are inverse; zooming keeps the point under the cursor", "[layout][camera]") {
  Camera camera{50, 20, 4};
  float sx, sy, x, y;
  camera.to_screen(50, 20, 800, 600, sx, sy);
  CHECK((sx == 400 && sy == 300));  // the centre
  camera.to_screen(60, 10, 800, 600, sx, sy);
  CHECK((sx == 440 && sy == 260));
  camera.to_world(sx, sy, 800, 600, x, y);
  CHECK((x == Approx(60) && y == Approx(10)));
  camera.zoom_about(2.5f, 700, 100, 800, 600);
  CHECK(camera.scale == Approx(10));
  camera.to_world(700, 100, 800, 600, x, y);
  CHECK((x == Approx(125) && y == Approx(-30)));  // where (700, 100) pointed before: 50 + 300/4, 20 - 200/4
  camera.zoom_about(1e9f, 0, 0, 800, 600);
  CHECK(camera.scale == 2000);
}

TEST_CASE("framing a box centres it and fits its tighter side", "[layout][camera]") {
  DrawingBox box;
  CHECK(box.empty());
  const Camera before{1, 2, 3};
  const Camera unchanged = Camera::framing(box, 800, 600, 0.9f, 2, before);
  CHECK((unchanged.centre_x == 1 && unchanged.scale == 3));
  box.add(10, 0), box.add(30, 100);
  const Camera camera = Camera::framing(box, 800, 600, 0.9f, 2, before);
  CHECK((camera.centre_x == 20 && camera.centre_y == 50));
  CHECK(camera.scale == Approx(0.9f * 600 / 102));  // the height is the tighter side
}
