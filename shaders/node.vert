#version 300 es
// One instance per node: a rounded box centred at a_rect.xy with half size a_rect.zw (world units).
// Boxes never shrink below 1 pixel so a zoomed-out 20k-node graph still shows every node.
layout(location = 0) in vec2 a_corner;  // unit quad corner, -1..1
layout(location = 1) in vec4 a_rect;    // centre x, y, half width, half height
layout(location = 2) in vec4 a_colour;  // RGBA (normalised bytes)
uniform vec2 u_centre;    // world point at the viewport centre
uniform float u_scale;    // device pixels per world unit
uniform vec2 u_viewport;  // viewport size, device pixels
out vec2 v_local;         // pixel offset from the box centre
out vec2 v_half;          // half size, pixels
out vec4 v_colour;
void main() {
  v_half = max(a_rect.zw * u_scale, vec2(1.0));
  v_local = a_corner * v_half;
  vec2 pixels = (a_rect.xy - u_centre) * u_scale + v_local;
  gl_Position = vec4(pixels / (0.5 * u_viewport) * vec2(1.0, -1.0), 0.0, 1.0);
  v_colour = a_colour;
}
