// Viewer's per-frame work: background slices, mouse and keyboard, the graph, labels and minimap.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>

#include "data/opcodes.h"
#include "drawing/node_style.h"
#include "imgui.h"
#include "viewer.h"

namespace graphcost::app {
namespace {
using Clock = std::chrono::steady_clock;
constexpr float kMinimapSize = 220;  // CSS pixels
constexpr float kMinimapLeft = 10;   // CSS pixels from the graph area's left edge
}  // namespace

void Viewer::frame(int width, int height, float pixel_ratio) {
  const auto start = Clock::now();
  // Background work gets about as much time as the rest of a frame took (drawing a big graph in a
  // software-GL browser can take 100+ ms): half the wall time, whatever the frame rate.
  const double since_last =
      last_frame_ == Clock::time_point{} ? 30.0 : std::chrono::duration<double, std::milli>(start - last_frame_).count();
  const double budget = std::max(20.0, std::min(since_last, 250.0));
  last_frame_ = start;
  const bool first_size = width_ == 0;
  // The graph area: the canvas between the open panel columns.
  const int left = left_open_ ? static_cast<int>(kLeftColumn * pixel_ratio) : 0;
  const int right = right_open_ ? static_cast<int>(kRightColumn * pixel_ratio) : 0;
  const int old_width = width_, old_height = height_;
  canvas_width_ = width, canvas_height_ = height, pixel_ratio_ = pixel_ratio;
  // The summary line's strip on top (three lines) is kept clear of the graph as well.
  const int strip = static_cast<int>(3 * ImGui::GetTextLineHeight() + 16 * pixel_ratio);
  area_x_ = left, area_y_ = strip, width_ = std::max(1, width - left - right), height_ = std::max(1, height - strip);
  if (graph_ && (first_size || fit_view_pending_)) {
    fit_view();
  } else if (graph_ && (old_width != width_ || old_height != height_)) {
    // The same part of the drawing stays in view: scale with the area's tighter side.
    camera_.scale *= static_cast<float>(std::min(width_, height_)) / static_cast<float>(std::max(1, std::min(old_width, old_height)));
  }
  fit_view_pending_ = false;
  // Background work first, within a budget that keeps the page responsive.
  work(budget);

  handle_keys();
  handle_mouse(width_, height_);
  const bool emphasis = colouring_ == Colouring::Configurable || colouring_ == Colouring::Contribution || colouring_ == Colouring::Compare;
  if (graph_ && !grouped_ && emphasis && std::fabs(camera_.scale / std::max(1e-6f, sized_for_scale_) - 1.0f) > 0.05f) recolour();

  glViewport(0, 0, width, height);
  glClearColor(0.97f, 0.97f, 0.98f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (graph_) {
    // Level of detail: when a node box is under 2 device pixels wide, 36k edges are sub-pixel noise
    // that costs most of a software-GL frame; they come back on zooming in (G toggles them).
    const bool edges = show_edges_ && (grouped_ || camera_.scale * DrawingOptions{}.node_width >= 2.0f);
    renderer_->draw(camera_, area_x_, 0, width_, height_, std::max(1.0f, 1.2f * pixel_ratio), edges);
    if (show_labels_) draw_labels(width_, height_);
    if (show_minimap_ && !grouped_) draw_minimap(width_, height_);
    draw_summary(width_);
  }
  panel_rects_.clear();
  panel_edges();

  banner_error();
  window_drawing_progress();
  panel_open();
  if (!graph_ && space_) {
    panel_space();
    panel_tune();
  }
  if (graph_) {
    panel_view();
    panel_inspector();
    panel_tune();
    panel_ranking();
    panel_explain();
    panel_scatter();
  }
  frame_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void Viewer::handle_keys() {
  ImGuiIO& io = ImGui::GetIO();
  // Pressed since the last frame: ImGui 1.86 compares key state between frames, so a press and
  // release that both fall between two slow frames (software GL) would be lost; the GLFW key
  // callback records presses too (note_key_press).
  std::vector<int> presses;
  presses.swap(key_presses_);
  auto pressed = [&](int key) { return ImGui::IsKeyPressed(key) || std::find(presses.begin(), presses.end(), key) != presses.end(); };
  if (pending_ && !io.WantCaptureKeyboard && pressed(GLFW_KEY_ESCAPE)) {
    stop_drawing(false);
    return;
  }
  if (io.WantCaptureKeyboard || !graph_) return;
  const float pan = 80.0f * pixel_ratio_ / camera_.scale;
  if (pressed(GLFW_KEY_F)) fit_view();
  if (pressed(GLFW_KEY_ESCAPE)) select_node(-1);
  if (pressed(GLFW_KEY_SLASH)) focus_search_ = true;
  if (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD)) camera_.scale *= 1.25f;
  if (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT)) camera_.scale /= 1.25f;
  if (ImGui::IsKeyDown(GLFW_KEY_LEFT)) camera_.centre_x -= pan * 0.2f;
  if (ImGui::IsKeyDown(GLFW_KEY_RIGHT)) camera_.centre_x += pan * 0.2f;
  if (ImGui::IsKeyDown(GLFW_KEY_UP)) camera_.centre_y -= pan * 0.2f;
  if (ImGui::IsKeyDown(GLFW_KEY_DOWN)) camera_.centre_y += pan * 0.2f;
  if (pressed(GLFW_KEY_C)) {
    colouring_ = colouring_ == Colouring::Configurable ? Colouring::Opcode : Colouring::Configurable;
    recolour();
  }
  if (pressed(GLFW_KEY_L)) show_labels_ = !show_labels_;
  if (pressed(GLFW_KEY_M)) show_minimap_ = !show_minimap_;
  if (pressed(GLFW_KEY_G)) show_edges_ = !show_edges_;
  if (pressed(GLFW_KEY_E)) explain_selected();
  if (pressed(GLFW_KEY_S)) set_grouped(!grouped_);
}

void Viewer::handle_mouse(int width, int height) {
  ImGuiIO& io = ImGui::GetIO();
  hovered_node_ = -1;
  if (!graph_) return;
  const ImVec2 mouse(io.MousePos.x - static_cast<float>(area_x_), io.MousePos.y - static_cast<float>(area_y_));  // in the graph area
  const float minimap = kMinimapSize * pixel_ratio_;
  const float minimap_left = kMinimapLeft * pixel_ratio_;
  const bool over_minimap =
      show_minimap_ && !grouped_ && mouse.x > minimap_left && mouse.x < minimap_left + minimap && mouse.y > height - minimap - 10;
  if (io.WantCaptureMouse || mouse.x < 0 || mouse.x > static_cast<float>(width) || mouse.y < 0) {  // over a panel or the summary
    dragging_ = false;
    return;
  }
  if (over_minimap) {
    if (ImGui::IsMouseDown(0)) {  // jump: the minimap shows the whole layout
      const int side = static_cast<int>(minimap);
      minimap_camera(side).to_world(mouse.x - minimap_left, mouse.y - (height - minimap - 10), side, side, camera_.centre_x,
                                    camera_.centre_y);
    }
    return;
  }
  float wx, wy;
  camera_.to_world(mouse.x, mouse.y, width, height, wx, wy);
  const GraphHierarchy::Hit hit = grouped_ ? session_->drawing().hierarchy().hit(wx, wy) : GraphHierarchy::Hit{};
  const int32_t hovered_box = hit.item.cluster ? hit.item.id : -1;
  hovered_node_ = grouped_ ? (hit.item.cluster ? -1 : hit.item.id)
                           : session_->drawing().node_at(wx, wy, 2.0f / std::max(camera_.scale, 1e-6f));  // boxes are at least 1 px
  if (io.MouseWheel != 0) camera_.zoom_about(std::pow(1.15f, io.MouseWheel), mouse.x, mouse.y, width, height);
  if (ImGui::IsMouseClicked(0)) {
    dragging_ = true;
    drag_x_ = mouse.x, drag_y_ = mouse.y;
  }
  if (dragging_ && ImGui::IsMouseDown(0) && !ImGui::IsMouseClicked(0)) {  // the press frame's delta is the jump to it
    camera_.centre_x -= io.MouseDelta.x / camera_.scale;
    camera_.centre_y -= io.MouseDelta.y / camera_.scale;
  }
  if (dragging_ && ImGui::IsMouseReleased(0)) {
    dragging_ = false;
    // A click (no drag) selects the node under the cursor, or clears the selection; in the nested
    // view a click on a closed box opens it in place, on an open box's title bar closes it.
    if (std::fabs(mouse.x - drag_x_) < 4 && std::fabs(mouse.y - drag_y_) < 4) {
      if (hovered_box >= 0) {
        toggle_box(hovered_box);
      } else {
        select_node(hovered_node_);
      }
    }
  }
  if (hovered_box >= 0) {
    const HierarchyCluster& box = session_->drawing().hierarchy().cluster(hovered_box);
    ImGui::BeginTooltip();
    ImGui::Text("%s: %d nodes (click to %s)", box.title.c_str(), box.node_count, box.expanded ? "close" : "open");
    const std::string& contents = session_->drawing().cluster_contents(hovered_box);
    if (!contents.empty()) ImGui::Text("most common: %s", contents.c_str());
    const std::string cost = box_cost_text(hovered_box);
    if (!cost.empty()) ImGui::Text("%s (the explanation of %s)", cost.c_str(), explained_configs().c_str());
    ImGui::EndTooltip();
  }
  if (hovered_node_ >= 0) {
    ImGui::BeginTooltip();
    ImGui::Text("node %d: %s", hovered_node_, opcode_name(graph_->node_opcodes[static_cast<size_t>(hovered_node_)]).c_str());
    const std::vector<float>& contribution = session_->explanation().node_contribution();
    if (explanation_shown_ && !contribution.empty() && contribution[static_cast<size_t>(hovered_node_)] != 0) {
      ImGui::Text("contribution %+.4f", contribution[static_cast<size_t>(hovered_node_)]);
    }
    ImGui::EndTooltip();
  }
}

void Viewer::draw_labels(int width, int height) const {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  // `text` centred on layout point (x, y) when it fits in `room` device pixels.
  auto label = [&](float x, float y, const std::string& text, float room) {
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    if (size.x > room) return false;
    float sx, sy;
    camera_.to_screen(x, y, width, height, sx, sy);
    draw->AddText(ImVec2(static_cast<float>(area_x_) + sx - size.x / 2, static_cast<float>(area_y_) + sy - size.y / 2),
                  IM_COL32(25, 25, 30, 255), text.c_str());
    return true;
  };
  if (grouped_) {
    draw_box_labels(width, height);
    return;
  }
  const float box_pixels = DrawingOptions{}.node_width * camera_.scale;
  if (box_pixels < 40 * pixel_ratio_) return;  // too small to read: labels would be noise
  const float half_w = static_cast<float>(width) / 2 / camera_.scale, half_h = static_cast<float>(height) / 2 / camera_.scale;
  int drawn = 0;
  for (int32_t v = 0; v < graph_->node_count && drawn < 4000; ++v) {
    const float x = drawing().x[static_cast<size_t>(v)], y = drawing().y[static_cast<size_t>(v)];
    if (std::fabs(x - camera_.centre_x) > half_w + 1 || std::fabs(y - camera_.centre_y) > half_h + 1) continue;  // visible only
    drawn += label(x, y, opcode_name(graph_->node_opcodes[static_cast<size_t>(v)]), box_pixels * 0.95f);
  }
}

// The nested view's labels: a closed box gets its title, its size and cost share, and what it
// mostly holds (as many lines as fit); an open box its title in its title bar; a node its name. A
// label is cut ("..") to its box's width, and left out when fewer than 4 characters would remain.
// label_stats_ counts what was drawn, legible (whole on the canvas, 4+ characters) and overlapping.
void Viewer::draw_box_labels(int width, int height) const {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const GraphHierarchy& boxes = session_->drawing().hierarchy();
  const float line = ImGui::GetTextLineHeight();
  std::vector<ImVec4> placed;  // x0, y0, x1, y1 of each label drawn
  label_stats_ = {};
  auto fit = [&](std::string text, float room) {
    if (ImGui::CalcTextSize(text.c_str()).x <= room) return text;
    while (text.size() > 4 && ImGui::CalcTextSize((text + "..").c_str()).x > room) text.pop_back();
    return text.size() > 4 ? text + ".." : std::string();
  };
  auto put = [&](float centre_x, float top, const std::string& text, float room, ImU32 colour, bool left_align = false) {
    const std::string shown = fit(text, room);
    if (shown.empty()) return;
    const ImVec2 size = ImGui::CalcTextSize(shown.c_str());
    const float x = left_align ? centre_x : centre_x - size.x / 2;
    if (x + size.x < 0 || x > width || top + size.y < 0 || top > height) return;  // off screen: not drawn
    draw->AddText(ImVec2(static_cast<float>(area_x_) + x, static_cast<float>(area_y_) + top), colour, shown.c_str());
    const ImVec4 box(x, top, x + size.x, top + size.y);
    ++label_stats_.drawn;
    if (box.x >= 0 && box.z <= width && box.y >= 0 && box.w <= height) ++label_stats_.legible;
    for (const ImVec4& other : placed) {
      if (box.x < other.z && other.x < box.z && box.y < other.w && other.y < box.w) ++label_stats_.overlapping;
    }
    placed.push_back(box);
  };
  const ImU32 ink = IM_COL32(25, 25, 30, 255), soft = IM_COL32(70, 70, 80, 255);
  for (const int32_t frame : boxes.frames()) {
    const HierarchyCluster& c = boxes.cluster(frame);
    float x0, y0, x1, y1;
    camera_.to_screen(c.x - c.half_width, c.y - c.half_height, width, height, x0, y0);
    camera_.to_screen(c.x + c.half_width, c.y - c.half_height + GraphHierarchy::kHeader, width, height, x1, y1);
    if (y1 - y0 < line) continue;
    const std::string cost = box_cost_text(frame);
    const std::string text = c.title + " (" + std::to_string(c.node_count) + " nodes" + (cost.empty() ? "" : ", " + cost) + ")";
    put(x0 + 6 * pixel_ratio_, y0 + (y1 - y0 - line) / 2, text, x1 - x0 - 12 * pixel_ratio_, ink, true);
  }
  for (const HierarchyItem& item : boxes.visible()) {
    if (!item.cluster) {
      float x = 0, y = 0, sx, sy;
      boxes.node_centre(item.id, x, y);
      camera_.to_screen(x, y, width, height, sx, sy);
      const float room = GraphHierarchy::kNodeWidth * camera_.scale * 0.92f;
      if (GraphHierarchy::kNodeHeight * camera_.scale < line) continue;
      const std::string name = graph_->names.empty() ? opcode_name(graph_->node_opcodes[static_cast<size_t>(item.id)])
                                                     : graph_->names.instructions[static_cast<size_t>(item.id)];
      put(sx, sy - line / 2, name, room, ink);
      continue;
    }
    const HierarchyCluster& c = boxes.cluster(item.id);
    float sx, sy;
    camera_.to_screen(c.x, c.y, width, height, sx, sy);
    const float box_height = 2 * c.half_height * camera_.scale, room = 2 * c.half_width * camera_.scale * 0.92f;
    const int lines = std::min(3, static_cast<int>(box_height * 0.9f / line));
    if (lines < 1) continue;
    std::vector<std::pair<std::string, ImU32>> text = {{c.title, ink}};
    const std::string cost = box_cost_text(item.id);
    if (lines >= 2) text.push_back({std::to_string(c.node_count) + " nodes" + (cost.empty() ? "" : ", " + cost), soft});
    const std::string& contents = session_->drawing().cluster_contents(item.id);
    if (lines >= 3 && !contents.empty()) text.push_back({contents, soft});
    float top = sy - line * static_cast<float>(text.size()) / 2;
    for (const auto& [words, colour] : text) {
      put(sx, top, words, room, colour);
      top += line;
    }
  }
}

// The summary line, in its strip above the graph area, between the panel columns: what the
// visitor is looking at.
void Viewer::draw_summary(int width) const {
  const std::string line = summary();
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float left = static_cast<float>(area_x_) + 10 * pixel_ratio_, right = static_cast<float>(area_x_ + width) - 10 * pixel_ratio_;
  const float wrap = std::max(200.0f, right - left);
  const ImVec2 size = ImGui::CalcTextSize(line.c_str(), nullptr, false, wrap);
  const float x = left + std::max(0.0f, (right - left - size.x) / 2), y = 8 * pixel_ratio_;
  draw->AddRectFilled(ImVec2(x - 8, y - 4), ImVec2(x + size.x + 8, y + size.y + 4), IM_COL32(255, 255, 255, 235), 4);
  draw->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(x, y), IM_COL32(25, 25, 30, 255), line.c_str(), nullptr, wrap);
}

Camera Viewer::minimap_camera(int side) const {
  DrawingBox whole;
  whole.add(0, 0), whole.add(drawing().width, drawing().height);
  return Camera::framing(whole, side, side, 1.0f, 1, camera_);
}

void Viewer::draw_minimap(int width, int height) {
  const float size = kMinimapSize * pixel_ratio_;
  const int left = area_x_ + static_cast<int>(kMinimapLeft * pixel_ratio_), bottom = 10;  // GL origin is bottom-left
  const Camera whole = minimap_camera(static_cast<int>(size));
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float top = static_cast<float>(area_y_ + height) - size - 10;
  draw->AddRectFilled(ImVec2(static_cast<float>(left), top), ImVec2(static_cast<float>(left) + size, top + size),
                      IM_COL32(255, 255, 255, 235));
  // The background draw list renders after this GL pass, so draw the graph on top via a deferred callback.
  struct Pass {
    Viewer* viewer;
    Camera camera;
    int left, bottom, size;
  };
  static Pass pass;
  pass = {this, whole, left, bottom, static_cast<int>(size)};
  draw->AddCallback(
      [](const ImDrawList*, const ImDrawCmd* command) {
        const Pass& p = *static_cast<const Pass*>(command->UserCallbackData);
        p.viewer->renderer_->draw(p.camera, p.left, p.bottom, p.size, p.size, 1.0f, /*edges=*/false);  // an overview: nodes only
      },
      &pass);
  draw->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  // The main view's extent on the minimap.
  float x0, y0, x1, y1;  // the main view's corners, on the minimap
  camera_.to_world(0, 0, width, height, x0, y0);
  camera_.to_world(static_cast<float>(width), static_cast<float>(height), width, height, x1, y1);
  whole.to_screen(x0, y0, static_cast<int>(size), static_cast<int>(size), x0, y0);
  whole.to_screen(x1, y1, static_cast<int>(size), static_cast<int>(size), x1, y1);
  auto clamp = [&](float v) { return std::max(0.0f, std::min(size, v)); };
  draw->AddRect(ImVec2(left + clamp(x0), top + clamp(y0)), ImVec2(left + clamp(x1), top + clamp(y1)), IM_COL32(220, 60, 40, 255), 0, 0, 2);
  draw->AddRect(ImVec2(static_cast<float>(left), top), ImVec2(static_cast<float>(left) + size, top + size), IM_COL32(120, 120, 130, 255));
}

}  // namespace graphcost::app
