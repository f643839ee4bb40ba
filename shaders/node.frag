#version 300 es
// Rounded box by signed distance, anti-aliased, with a darker 1.5-pixel rim.
precision mediump float;
in vec2 v_local;
in vec2 v_half;
in vec4 v_colour;
out vec4 o_colour;
void main() {
  float radius = min(min(v_half.x, v_half.y) * 0.35, 8.0);
  vec2 q = abs(v_local) - (v_half - vec2(radius));
  float distance = length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - radius;
  float coverage = clamp(0.5 - distance, 0.0, 1.0);
  float rim = min(v_half.x, v_half.y) > 3.0 ? clamp(distance + 2.0, 0.0, 1.0) : 0.0;
  o_colour = vec4(mix(v_colour.rgb, v_colour.rgb * 0.5, rim), v_colour.a * coverage);
}
