// The browser app's entry point: a GLFW window on the page's canvas (Emscripten's built-in GLFW),
// Dear ImGui with the GLFW + OpenGL3 (WebGL2) backends, the frame loop, and the JS API the page
// (index.html) and the browser tests call. HiDPI is handled here: the canvas' backing store is
// sized in device pixels, and ImGui works in device pixels with fonts and style scaled to match.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "common/error_exit.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"
#include "viewer.h"

namespace {

GLFWwindow* window = nullptr;
std::unique_ptr<graphcost::app::Viewer> viewer;
float font_ratio = 0;  // the pixel ratio the font atlas was built for
int input_events = 0;  // bumped by every GLFW input callback (ImGui's backend chains to ours)
int drawn_input_events = -1;
double last_draw = 0;  // when the last drawn frame started (ms)
double draw_cost = 0;  // how long that frame took, measured at the next callback (ms)
bool measure_draw = false;
// Idle frames are not drawn: WebGL keeps showing the last one. A frame is drawn when there is
// input (and a few frames after it: ImGui shows hover and active states a frame late), when a JS
// API call changed something, when background work ends, and when the canvas size changes.
int settle_frames = 0;
bool page_changed = true;
bool was_busy = false;
int drawn_width = 0, drawn_height = 0;
float drawn_ratio = 0;

void count_input() { ++input_events; }
void on_cursor(GLFWwindow*, double, double) { count_input(); }
void on_button(GLFWwindow*, int, int, int) { count_input(); }
void on_scroll(GLFWwindow*, double, double) { count_input(); }
void on_key(GLFWwindow*, int key, int, int action, int) {
  count_input();
  if (action == GLFW_PRESS && viewer) viewer->note_key_press(key);
}
void on_char(GLFWwindow*, unsigned) { count_input(); }

void build_fonts(float ratio) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFontConfig config;
  config.SizePixels = std::round(13.0f * ratio);
  io.Fonts->AddFontDefault(&config);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  ImGuiStyle style;
  ImGui::StyleColorsLight(&style);
  style.WindowRounding = 4;
  style.ScaleAllSizes(ratio);
  ImGui::GetStyle() = style;
  font_ratio = ratio;
}

void on_drop(GLFWwindow*, int count, const char** paths) {
  count_input();
  if (count > 0 && viewer) {  // Emscripten puts dropped files in MEMFS under /.glfw_dropped_files/
    const std::string path = paths[0];
    viewer->open(path, path.substr(path.find_last_of('/') + 1));
  }
}

void frame() {
  // Busy and nobody touching or resizing the page: work instead of redrawing, but redraw at least
  // twice a second so progress shows. WebGL keeps showing the last frame when nothing is drawn.
  const double now = emscripten_get_now();
  if (measure_draw) {  // the previous callback drew: its cost includes the browser's GL work
    draw_cost = now - last_draw;
    measure_draw = false;
  }
  // The canvas fills the page by CSS; its backing store follows in device pixels.
  double css_width = 0, css_height = 0;
  emscripten_get_element_css_size("#canvas", &css_width, &css_height);
  const float ratio = static_cast<float>(emscripten_get_device_pixel_ratio());
  const int width = std::max(1, static_cast<int>(std::lround(css_width * ratio)));
  const int height = std::max(1, static_cast<int>(std::lround(css_height * ratio)));
  const bool resized = width != drawn_width || height != drawn_height || ratio != drawn_ratio;
  const bool busy = viewer->busy();
  const bool input = input_events != drawn_input_events;
  if (busy && !input && !resized && now - last_draw < std::max(500.0, 5 * draw_cost)) {
    viewer->work(40);
    was_busy = true;
    return;
  }
  const bool* keys = ImGui::GetIO().KeysDown;  // arrows held pan every frame, between key repeats too
  const bool panning = keys[GLFW_KEY_LEFT] || keys[GLFW_KEY_RIGHT] || keys[GLFW_KEY_UP] || keys[GLFW_KEY_DOWN];
  if (!busy && !was_busy && !input && !page_changed && !resized && !panning && settle_frames == 0) return;  // idle: keep the last frame
  // A few frames after input or the end of background work: ImGui sizes tables and windows from
  // the frame before, so a single frame would leave them half laid out (a ranking table of "r|c").
  settle_frames = input || (was_busy && !busy) ? 3 : std::max(0, settle_frames - 1);
  was_busy = busy;
  page_changed = false;
  drawn_input_events = input_events;
  drawn_width = width, drawn_height = height, drawn_ratio = ratio;
  last_draw = now;
  measure_draw = true;
  int current_width = 0, current_height = 0;
  emscripten_get_canvas_element_size("#canvas", &current_width, &current_height);
  // Not glfwSetWindowSize: Emscripten's GLFW asks for fullscreen when the size equals the screen's.
  if (current_width != width || current_height != height) emscripten_set_canvas_element_size("#canvas", width, height);
  if (ratio != font_ratio) build_fonts(ratio);

  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  if (!(io.DeltaTime > 0)) io.DeltaTime = 1.0f / 60.0f;  // headless browsers can report 0: ImGui 1.86 asserts
  ImGui::NewFrame();
  viewer->frame(width, height, ratio);
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace

extern "C" {

// Opens a file already in the in-memory file system (the page writes picked and fetched files
// there). Returns 1 on success; on failure the app shows the error and keeps the previous graph.
EMSCRIPTEN_KEEPALIVE int graphcost_app_open(const char* path, const char* display_name) {
  page_changed = true;
  return viewer && viewer->open(path, display_name ? display_name : "") ? 1 : 0;
}

// The app's state as JSON (docs/browser-app.md); valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* graphcost_app_state_json() {
  static std::string text;
  text = viewer ? viewer->state().dump() : "{}";
  return text.c_str();
}

// Where node `node` is drawn, as JSON {x, y} in CSS pixels from the canvas' top-left ("null" if none).
EMSCRIPTEN_KEEPALIVE const char* graphcost_app_node_position_json(int node) {
  static std::string text;
  float x = 0, y = 0;
  const float ratio = static_cast<float>(emscripten_get_device_pixel_ratio());
  text = viewer && viewer->node_screen_position(node, x, y) ? nlohmann::json{{"x", x / ratio}, {"y", y / ratio}}.dump() : "null";
  return text.c_str();
}

// A view from a link (?view=): centre in drawing units, zoom relative to the fit view, grouped.
EMSCRIPTEN_KEEPALIVE void graphcost_app_set_view(float centre_x, float centre_y, float zoom, int grouped) {
  page_changed = true;
  if (viewer) viewer->set_view(centre_x, centre_y, zoom, grouped != 0);
}

// The nested view's boxes as drawn (Viewer::boxes_json), valid until the next call; and opening or
// closing one by id (timed: state().boxes.last_toggle).
EMSCRIPTEN_KEEPALIVE const char* graphcost_app_boxes_json() {
  static std::string text;
  text = viewer ? viewer->boxes_json().dump() : "[]";
  return text.c_str();
}

EMSCRIPTEN_KEEPALIVE void graphcost_app_toggle_box(int box) {
  page_changed = true;
  if (viewer) viewer->toggle_box_by_id(box);
}

// A link's nested view: `open` the boxes to open, dot-separated, outermost first; `centre_box` the
// box to centre on (-1: none); zoom relative to the fit view.
EMSCRIPTEN_KEEPALIVE void graphcost_app_set_box_view(const char* open, int centre_box, float zoom) {
  page_changed = true;
  if (!viewer) return;
  std::vector<int32_t> boxes;
  const std::string text = open ? open : "";
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('.', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(start, end - start);
    if (!part.empty() && part.size() < 10 && part.find_first_not_of("0123456789") == std::string::npos) boxes.push_back(std::stoi(part));
    start = end + 1;
  }
  viewer->set_box_view(boxes, centre_box, zoom);
}

// The Tune panel: replay rounds on the open labelled file (budget, per round, learner: a
// learner_names() name; another is refused on the console), or stop them.
EMSCRIPTEN_KEEPALIVE void graphcost_app_tune(int budget, int per_round, const char* learner) {
  page_changed = true;
  try {
    const graphcost::LearnerKind chosen = graphcost::value_named(graphcost::learner_names(), learner, "learner");
    if (viewer) viewer->start_tune(budget, per_round, chosen);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", graphcost::error_message(e).c_str());
  }
}

EMSCRIPTEN_KEEPALIVE void graphcost_app_stop_tune() {
  page_changed = true;
  if (viewer) viewer->stop_tune();
}

EMSCRIPTEN_KEEPALIVE void graphcost_app_select_config(int config) {
  page_changed = true;
  if (viewer) viewer->select_config(config);
}

// A drawing in progress: 1 shows the graph now with the drawing so far, 0 cancels the file.
EMSCRIPTEN_KEEPALIVE void graphcost_app_stop_drawing(int keep_rough) {
  page_changed = true;
  if (viewer) viewer->stop_drawing(keep_rough != 0);
}

// 1 holds a drawing in progress at its current unit (the progress window stays), 0 lets it go on.
EMSCRIPTEN_KEEPALIVE void graphcost_app_hold_drawing(int hold) {
  page_changed = true;
  if (viewer) viewer->hold_drawing(hold != 0);
}

// Draws the next frame even if nothing changed (benchmarks of the frame time).
EMSCRIPTEN_KEEPALIVE void graphcost_app_redraw() { page_changed = true; }

// Nodes matching `text` (RankingSession::find_nodes, at most 500) as JSON, with their names.
EMSCRIPTEN_KEEPALIVE const char* graphcost_app_find_nodes_json(const char* text) {
  static std::string json;
  json = viewer ? viewer->find_nodes_json(text ? text : "").dump() : "[]";
  return json.c_str();
}

// The demo list the page read from demos/index.json: [{"name": ..., "url": ...}].
EMSCRIPTEN_KEEPALIVE void graphcost_app_set_demos(const char* json) {
  page_changed = true;
  if (viewer) viewer->set_demos(nlohmann::json::parse(json, nullptr, false));
}

}  // extern "C"

int main() {
  if (!glfwInit()) {
    std::fprintf(stderr, "glfwInit failed\n");
    return 1;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  window = glfwCreateWindow(1280, 800, "graphcost", nullptr, nullptr);
  if (window == nullptr) {
    std::fprintf(stderr, "no WebGL2 context\n");
    return 1;
  }
  glfwMakeContextCurrent(window);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the browser's memory file system
  // Our input counters first: ImGui's backend installs its callbacks and chains to these.
  glfwSetCursorPosCallback(window, on_cursor);
  glfwSetMouseButtonCallback(window, on_button);
  glfwSetScrollCallback(window, on_scroll);
  glfwSetKeyCallback(window, on_key);
  glfwSetCharCallback(window, on_char);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");
  glfwSetDropCallback(window, on_drop);
  viewer = std::make_unique<graphcost::app::Viewer>("/models");
  EM_ASM({
    if (Module.graphcostReady) Module.graphcostReady();
  });
  emscripten_set_main_loop(frame, 0, true);
  return 0;
}
