// Viewer: the browser app's state and behaviour, above GL and below the page. It loads a TpuGraphs
// file (errors become a message; the previous graph stays), lays it out (src/layout), ranks its
// configs with the shipped model a slice per frame (src/model), explains, searches, and draws the
// ImGui panels (viewer_panels.cpp) and the graph (GraphRenderer). app_main.cpp owns the window and
// forwards the page's calls (the JS API) here.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"
#include "graph_renderer.h"
#include "layout/dag_layout.h"
#include "model/config_explainer.h"
#include "model/cost_model.h"
#include "model/layout_inference.h"

namespace graphcost::app {

enum class Colouring { Opcode, Configurable, Section, Contribution, Compare };

class Viewer {
 public:
  // `model_dir` holds layout_xla.npz and tile_xla.npz (the WebAssembly build preloads models/).
  explicit Viewer(std::string model_dir);
  ~Viewer();

  // Reads `path` and starts laying it out (a unit at a time between frames, with a progress
  // window); the graph replaces the current one when its layout is done. On failure keeps the
  // current graph and shows the error. Returns whether the file was read.
  bool open(const std::string& path, const std::string& display_name = "");
  // A layout in progress: `keep_rough` ends it now with the layout so far (DagLayoutJob::
  // finish_early) and shows the graph; otherwise the file is dropped and the current graph stays.
  void stop_layout(bool keep_rough);
  // Holds layouts in progress (this one and later ones) at their current unit until released
  // (tests and demos of the progress window).
  void hold_layout(bool hold) { layout_held_ = hold; }
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
  void select_node(int32_t node);
  void select_config(int32_t config);
  void set_demos(const nlohmann::json& demos);  // [{name, url}] shown in the Open panel
  // Where node `node` is drawn, in device pixels from the canvas' top-left; false if none.
  bool node_screen_position(int32_t node, float& x, float& y) const;

 private:
  // Loading and layout.
  void continue_layout(double budget_ms);
  void show_loaded();  // the laid-out pending file becomes the current graph
  void window_layout_progress();
  void build_geometry();
  // Grouped view: one box per group (node_splits sections when a file has 3 or more, else bands
  // of layers), laid out as a DAG of groups; clicking a group opens it in the full view.
  void build_groups();
  void set_grouped(bool grouped);
  int32_t group_at(float world_x, float world_y) const;
  void frame_nodes(int32_t group);  // centres and zooms the full view on a group's nodes
  void recolour();
  void fit_view();
  // Ranking (a slice per frame) and derived metrics.
  void start_ranking();
  void continue_ranking(double budget_ms);
  void finish_ranking();
  void continue_jobs(double budget_ms);
  // Input and drawing.
  void handle_mouse(int width, int height);
  void handle_keys();
  int32_t node_at(float world_x, float world_y) const;
  void draw_labels(int width, int height) const;
  void draw_minimap(int width, int height);
  // Panels (viewer_panels.cpp).
  void panel_open();
  void panel_view();
  void panel_inspector();
  void panel_ranking();
  void panel_explain();
  void panel_scatter();
  void banner_error();
  void start_explain();
  void start_compare();
  void start_search();
  void update_what_if();
  void compute_neighbourhood();

  std::string model_dir_;
  std::unique_ptr<GraphRenderer> renderer_;
  nlohmann::json demos_ = nlohmann::json::array();
  std::string error_;
  std::string pending_url_;  // a demo the page is fetching

  // A file read and being laid out; it replaces the current graph when the layout is done.
  struct PendingGraph {
    std::unique_ptr<TpuGraph> graph;
    std::unique_ptr<CostModel> model;  // null: the current model fits
    std::string model_path, file;
    double load_ms = 0, layout_ms = 0;
    std::unique_ptr<DagLayoutJob> layout;
  };
  std::unique_ptr<PendingGraph> pending_;
  bool layout_held_ = false;

  // The loaded graph.
  std::unique_ptr<TpuGraph> graph_;
  std::string file_;
  DagLayout layout_;
  double load_ms_ = 0, layout_ms_ = 0;
  std::vector<NodeInstance> node_instances_;
  std::vector<EdgeInstance> edge_instances_;
  std::vector<int32_t> section_of_;  // node -> node_splits section (layout graphs)
  std::vector<int32_t> group_of_;    // node -> group of the grouped view
  std::string group_kind_;           // "section" or "layer band"
  DagLayout group_layout_;
  std::vector<int32_t> group_size_;
  std::vector<NodeInstance> group_instances_;
  std::vector<EdgeInstance> group_edges_;
  bool grouped_ = false;

  // The model and its ranking.
  std::unique_ptr<CostModel> model_;
  std::string model_path_;
  std::unique_ptr<PreparedGraph> prepared_;
  std::unique_ptr<LayoutInference> inference_;
  std::vector<int32_t> unique_configs_, slot_of_config_;
  std::vector<float> unique_costs_;
  size_t ranked_unique_ = 0;
  std::vector<float> costs_;
  std::vector<int32_t> order_;  // configs, predicted fastest first (stable by index)
  std::vector<int32_t> true_rank_;
  bool ranking_done_ = false;
  double ranking_ms_ = 0;          // wall time, from the layout's end to the last config
  double ranking_compute_ms_ = 0;  // of which in the model (the rest: frames drawn between slices)
  std::chrono::steady_clock::time_point ranking_started_;
  double kendall_tau_ = 0, top5_slowdown_ = 0, tile_score_ = 0, true_speedup_ = 0;
  bool labelled_ = false;

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
  float pixel_ratio_ = 1;
  int width_ = 0, height_ = 0;
  double frame_ms_ = 0;
  std::chrono::steady_clock::time_point last_frame_{};
  bool focus_search_ = false;
  std::vector<int> key_presses_;  // since the last frame

  // Explanations, what-if and search.
  std::unique_ptr<ContributionJob> explain_job_;
  bool explain_is_compare_ = false;
  NodeContributions contributions_;
  std::vector<float> node_contribution_;  // per node, for the overlay
  bool have_contributions_ = false;
  std::vector<int8_t> what_if_;  // the edited config (values)
  float what_if_cost_ = 0;
  int what_if_rank_ = 0;
  std::unique_ptr<GreedyLayoutSearch> search_;
};

}  // namespace graphcost::app
