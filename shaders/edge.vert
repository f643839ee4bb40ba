#version 300 es
// One instance per edge: a segment from a_segment.xy to a_segment.zw (world units), drawn as a
// quad u_width device pixels wide whatever the zoom.
layout(location = 0) in vec2 a_corner;   // x: 0..1 along the segment, y: -1..1 across
layout(location = 1) in vec4 a_segment;  // x0, y0, x1, y1
layout(location = 2) in vec4 a_colour;
uniform vec2 u_centre;
uniform float u_scale;
uniform vec2 u_viewport;
uniform float u_width;
out vec4 v_colour;
void main() {
  vec2 p0 = (a_segment.xy - u_centre) * u_scale;
  vec2 p1 = (a_segment.zw - u_centre) * u_scale;
  vec2 d = p1 - p0;
  float len = max(length(d), 1e-4);
  vec2 normal = vec2(-d.y, d.x) / len;
  vec2 pixels = mix(p0, p1, a_corner.x) + normal * a_corner.y * 0.5 * u_width;
  gl_Position = vec4(pixels / (0.5 * u_viewport) * vec2(1.0, -1.0), 0.0, 1.0);
  v_colour = a_colour;
}
