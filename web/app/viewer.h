// Viewer: the browser app's drawing, input and camera, above GL and below the page. It reads a
// TpuGraphs file (errors become a message; the previous graph stays) into a RankingSession
// (src/sessions/ranking_session.h and its parts: drawing, ranking, metrics, explanations, search, all GL-free and
// tested natively), gives the session time between frames, and draws the ImGui panels
// (viewer_panels.cpp) and the graph (GraphRenderer). app_main.cpp owns the window and forwards the
// page's calls (the JS API) here.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"
#include "drawing/node_style.h"
#include "graph_renderer.h"
#include "model/cost_model.h"
#include "sessions/ranking_session.h"
#include "sessions/scatter_axes.h"
#include "sessions/tune_session.h"

namespace graphcost::app {

class Viewer {
 public:
  // `model_dir` holds layout_xla.npz, layout_nlp.npz and tile_xla.npz (the WebAssembly build preloads models/).
  explicit Viewer(std::string model_dir);
  ~Viewer();

  // Reads `path` and starts laying it out (a unit at a time between frames, with a progress
  // window); the graph replaces the current one when its drawing is done. On failure keeps the
  // current graph and shows the error. Returns whether the file was read.
  bool open(const std::string& path, const std::string& display_name = "");
  // A drawing in progress: `keep_rough` ends it now with the drawing so far (LayeredDrawingJob::
  // finish_early) and shows the graph; otherwise the file is dropped and the current graph stays.
  void stop_drawing(bool keep_rough);
  // Holds drawings in progress (this one and later ones) at their current unit until released
  // (tests and demos of the progress window).
  void hold_drawing(bool hold) { drawing_held_ = hold; }
  // A key went down (from the GLFW key callback): seen by the next frame even if it is already up.
  void note_key_press(int key) { key_presses_.push_back(key); }
  // One frame: background work within a time budget, input, panels, graph. Sizes in device pixels.
  void frame(int width, int height, float pixel_ratio);

  // Background work pending (ranking, an explanation, a search), and a slice of it without drawing:
  // while busy and idle, app_main skips redraws (a software-GL frame of a 20k-node graph can take
  // seconds) and gives the time to the work.
  bool busy() const;
  void work(double budget_ms);

  // Page-facing state for tests and scripts (docs/browser-app.md lists the fields).
  nlohmann::json state() const;
  // One line on what is shown: the program, its size, its configurable nodes and configs, and the
  // model's pick against config 0 (predicted with its interval, or why not; measured when known).
  // Drawn at the top of the canvas; "" without a graph.
  std::string summary() const;
  void select_node(int32_t node);
  void select_config(int32_t config);
  // The view as a link keeps it: the centre in drawing units and the zoom relative to the fit view
  // (so a link opened in another window size shows the same part of the graph).
  void set_view(float centre_x, float centre_y, float zoom, bool grouped);
  // The nested view's closed boxes as drawn now: [{id, title, nodes, x, y, width, height}] in CSS
  // pixels from the canvas' top-left (for scripts and tests); toggle one by id.
  nlohmann::json boxes_json() const;
  // A link's nested view: opens `open` (outermost first), fits, zooms by `zoom` relative to the fit
  // view and centres on `centre_box` (if any).
  void set_box_view(const std::vector<int32_t>& open, int32_t centre_box, float zoom);
  void toggle_box_by_id(int32_t cluster) { toggle_box(cluster); }
  void set_demos(const nlohmann::json& demos);
  // The search box's matches for `text` (RankingSession::find_nodes), each with its names: for scripts.
  nlohmann::json find_nodes_json(const std::string& text) const;  // [{name, url}] shown in the Open panel
  // Where node `node` is drawn, in device pixels from the canvas' top-left; false if none.
  bool node_screen_position(int32_t node, float& x, float& y) const;
  // The Tune panel (viewer_tune.cpp): replay rounds on the open labelled file; stop at the next round.
  void start_tune(int budget, int per_round, LearnerKind learner);
  void stop_tune();
  // A kernel's parameter space (viewer_space.cpp): no graph to draw, its parameters in a table and
  // the Tune panel on its measurements. Opening a graph file ends it.
  bool open_space(const std::string& path, const std::string& display_name);

 private:
  // Loading and drawing.
  void show_loaded();  // the laid-out pending file becomes the current graph
  void window_drawing_progress();
  void build_geometry();
  void build_box_geometry();  // the nested view's frames, boxes, nodes and edges (uploads them when shown)
  void set_grouped(bool grouped);
  void toggle_box(int32_t cluster);  // opens or closes a box in place, timed (state().boxes.last_toggle)
  std::string box_cost_text(int32_t cluster) const;
  // The box's nodes with the largest explained contributions (node, contribution), largest first.
  std::vector<std::pair<int32_t, float>> costliest_in_box(int32_t cluster, size_t count) const;  // "+18% cost" once explained, else ""

  void recolour();
  void fit_view();
  Camera fit_camera() const;  // the camera that frames the whole drawing shown
  void after_work();          // takes what the session finished since the last frame (ranking, explanation)
  const LayeredDrawing& drawing() const { return session_->drawing().layered(); }
  // Input and drawing.
  void handle_mouse(int width, int height);
  void handle_keys();
  void draw_labels(int width, int height) const;
  void draw_box_labels(int width, int height) const;

  void draw_minimap(int width, int height);
  void draw_summary(int width) const;
  Camera minimap_camera(int side) const;  // the whole drawing in a side x side square
  // Panels (viewer_panels.cpp), docked in a left and a right column (CSS pixels wide).
  static constexpr float kLeftColumn = 340, kRightColumn = 450;
  bool begin_docked(const char* name, bool left, float top, float height);  // false: the column is hidden
  void panel_edges();
  void cost_legend();
  void panel_open();
  void panel_view();
  void panel_inspector();
  void panel_ranking();
  void panel_explain();
  void panel_scatter();
  void panel_tune();
  void panel_space();
  nlohmann::json space_state() const;
  const TpuGraph* tune_graph() const { return graph_ ? graph_ : space_ ? &space_->graph : nullptr; }  // what Tune replays
  std::vector<std::string> ranking_columns() const;                                                   // the ranking table's, as shown
  ScatterAxes scatter() const;                                                                        // the plot's points, axes and title
  void banner_error();
  void explain_selected(bool compare = false);  // the selected config, or its gap to the compared one
  void centre_on(int32_t node);                 // selects it and centres the view on it
  void update_what_if();
  void update_neighbourhood();

  ModelShelf models_;
  std::unique_ptr<GraphRenderer> renderer_;
  nlohmann::json demos_ = nlohmann::json::array();
  std::string error_;

  std::unique_ptr<RankingSession> pending_;  // read and being laid out; replaces session_ when done
  bool drawing_held_ = false;

  // The loaded graph.
  std::unique_ptr<RankingSession> session_;
  std::unique_ptr<TuningTarget> space_;  // a parameter space shown instead of a graph
  std::string space_name_;
  nlohmann::json space_summary_;                // summarize_parameter_space, once (not per frame)
  std::vector<std::string> space_value_texts_;  // each parameter's values as shown (cut)
  const TpuGraph* graph_ = nullptr;             // session_'s
  std::vector<NodeInstance> node_instances_;
  std::vector<EdgeInstance> edge_instances_;
  // The nested view (GraphHierarchy, the default): open boxes' frames drawn under the edges, closed
  // boxes and nodes over them; each box's share of the explained cost.
  std::vector<NodeInstance> box_instances_, box_frames_;
  std::vector<EdgeInstance> box_edges_;
  size_t box_edges_total_ = 0;  // edges between what is in view; box_edges_ holds the heaviest
  std::vector<double> box_cost_;
  double box_cost_total_ = 0;  // sum of |contribution| over the nodes
  bool grouped_ = true;        // the nested view; false: every node of the layered drawing
  int32_t selected_box_ = -1;
  nlohmann::json last_toggle_;  // {box, opened, ms}
  double upload_ms_ = 0;
  struct LabelStats {
    int drawn = 0, legible = 0, overlapping = 0;
  };
  mutable LabelStats label_stats_;  // the last frame's labels

  // Selection, view and overlays.
  Camera camera_;
  float sized_for_scale_ = 0;  // the zoom the emphasised nodes' sizes were computed for
  int32_t selected_node_ = -1, hovered_node_ = -1;
  int32_t selected_config_ = -1, compare_config_ = -1;
  Colouring colouring_ = Colouring::Opcode;
  int k_hops_ = 0;
  std::vector<char> in_neighbourhood_;
  char search_text_[128] = {0};
  std::vector<int32_t> search_results_;
  bool dragging_ = false;
  float drag_x_ = 0, drag_y_ = 0;
  bool show_labels_ = true, show_minimap_ = true, show_edges_ = true;
  bool show_raw_costs_ = false;  // the ranking's raw model costs, under "details"
  float pixel_ratio_ = 1;
  // The graph area (device pixels): the canvas between the panel columns, below the summary's
  // strip. width_ and height_ are its size, (area_x_, area_y_) its top-left; the camera, mouse
  // and labels work in it.
  int width_ = 0, height_ = 0, area_x_ = 0, area_y_ = 0;
  int canvas_width_ = 0, canvas_height_ = 0;
  bool left_open_ = true, right_open_ = true;
  bool fit_view_pending_ = false;            // a column was hidden or shown: refit the graph
  std::vector<nlohmann::json> panel_rects_;  // this frame's docked panels (CSS pixels)
  double frame_ms_ = 0;
  std::chrono::steady_clock::time_point last_frame_{};
  bool focus_search_ = false;
  std::vector<int> key_presses_;    // since the last frame
  bool explanation_shown_ = false;  // the session's explanation is coloured in
  bool auto_explained_ = false;     // the pick's explanation was started for this graph
  // The configs of the explanation running and of the one shown (the boxes' costs): -1 none.
  int32_t explaining_config_ = -1, explaining_other_ = -1, explained_config_ = -1, explained_other_ = -1;
  std::string explained_configs() const;  // "config 12", or "the difference between configs 12 and 40"

  // What-if: the edited config's values and the model's view of them.
  std::vector<int8_t> what_if_;
  SessionRanking::WhatIf what_if_result_;
  bool what_if_ranked_ = false;  // what_if_result_'s rank counts every config

  // Tuning the open file by replaying its measurements (viewer_tune.cpp).
  std::unique_ptr<TuneSession> tune_;
  int tune_budget_ = 100, tune_per_round_ = 10;
  LearnerKind tune_learner_ = LearnerKind::Auto;
};

}  // namespace graphcost::app
