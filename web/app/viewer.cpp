#include "viewer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error_exit.h"

namespace graphcost::app {

Viewer::Viewer(std::string model_dir) : models_(std::move(model_dir)) { renderer_ = std::make_unique<GraphRenderer>(); }

Viewer::~Viewer() = default;

bool Viewer::open(const std::string& path, const std::string& display_name) {
  try {
    pending_ = RankingSession::open(path, display_name, models_);  // a newer file replaces one still being laid out
  } catch (const std::exception& e) {                              // the CLI's wording (common/error_exit.h)
    error_ = error_message(e);
    return false;
  }
  error_.clear();
  return true;
}

void Viewer::stop_drawing(bool keep_rough) {
  if (!pending_) return;
  if (!keep_rough) {
    pending_.reset();
    return;
  }
  pending_->finish_drawing_early();
  show_loaded();
}

void Viewer::show_loaded() {
  session_ = std::move(pending_);
  graph_ = &session_->graph();
  selected_node_ = hovered_node_ = -1;
  selected_config_ = compare_config_ = -1;
  explanation_shown_ = false;
  what_if_.clear();
  what_if_result_ = {};
  what_if_ranked_ = false;
  search_results_.clear();
  in_neighbourhood_.clear();
  if (colouring_ == Colouring::Contribution || colouring_ == Colouring::Compare) colouring_ = Colouring::Opcode;
  grouped_ = false;  // before build_geometry: recolour() uploads nothing in the grouped view
  build_geometry();
  build_group_geometry();
  fit_view();
}

void Viewer::build_geometry() {
  node_instances_.clear();
  edge_instances_.clear();
  const DrawingOptions options;
  for (int32_t v = 0; v < graph_->node_count; ++v) {
    const size_t at = static_cast<size_t>(v);
    node_instances_.push_back({drawing().x[at], drawing().y[at], options.node_width / 2, options.node_height / 2, 200, 200, 200, 255});
  }
  for (const EdgeSegment& e : session_->edge_segments()) {
    edge_instances_.push_back(e.stub ? EdgeInstance{e.x0, e.y0, e.x1, e.y1, 150, 150, 170, 110}
                                     : EdgeInstance{e.x0, e.y0, e.x1, e.y1, 120, 120, 130, 120});
  }
  recolour();
}

void Viewer::recolour() {
  if (!graph_ || grouped_) return;
  StyleInputs inputs;
  inputs.colouring = colouring_;
  inputs.section_of = &session_->section_of();
  inputs.contribution = explanation_shown_ ? &session_->node_contribution() : nullptr;
  inputs.neighbourhood = &in_neighbourhood_;
  inputs.selected_node = selected_node_;
  // Emphasised nodes at least 8 CSS pixels wide, so a few among 20k stand out at any zoom (frame()
  // restyles when the zoom changes a lot).
  const DrawingOptions drawing_options;
  inputs.legible_grow = 8.0f * pixel_ratio_ / std::max(1e-6f, camera_.scale * drawing_options.node_width);
  const std::vector<NodeStyle> styles = style_nodes(*graph_, inputs);
  for (size_t v = 0; v < styles.size(); ++v) {
    NodeInstance& n = node_instances_[v];
    const NodeStyle& style = styles[v];
    n.r = style.r, n.g = style.g, n.b = style.b, n.a = style.a;
    n.half_width = style.grow * drawing_options.node_width / 2;
    n.half_height = style.grow * drawing_options.node_height / 2;
  }
  renderer_->upload(node_instances_, edge_instances_);
  sized_for_scale_ = camera_.scale;
}

Camera Viewer::fit_camera() const {
  const LayeredDrawing& shown = grouped_ ? session_->groups().drawing : drawing();
  DrawingBox whole;
  whole.add(0, 0), whole.add(shown.width, shown.height);
  return width_ > 0 && height_ > 0 ? Camera::framing(whole, width_, height_, 0.92f, 4, camera_)
                                   : Camera{shown.width / 2, shown.height / 2, 10};
}

void Viewer::fit_view() { camera_ = fit_camera(); }

void Viewer::set_view(float centre_x, float centre_y, float zoom, bool grouped) {
  if (!graph_ || !std::isfinite(centre_x) || !std::isfinite(centre_y) || !(zoom > 0) || !std::isfinite(zoom)) return;
  set_grouped(grouped);
  camera_ = fit_camera();
  camera_.centre_x = centre_x, camera_.centre_y = centre_y;
  camera_.scale *= std::min(1e4f, std::max(1e-2f, zoom));
}

void Viewer::build_group_geometry() {
  const GraphGroups& groups = session_->groups();
  group_instances_.clear();
  group_edges_.clear();
  const float half_height = GraphGroups::kGroupHeight / 2;
  for (size_t g = 0; g < groups.size.size(); ++g) {
    group_instances_.push_back({groups.drawing.x[g], groups.drawing.y[g], groups.half_width[g], half_height, 0, 0, 0, 255});
    category_colour(static_cast<int>(g), group_instances_.back().r, group_instances_.back().g, group_instances_.back().b);
  }
  for (const auto& [a, b] : groups.edges) {
    const size_t from = static_cast<size_t>(a), to = static_cast<size_t>(b);
    group_edges_.push_back({groups.drawing.x[from], groups.drawing.y[from] + half_height, groups.drawing.x[to],
                            groups.drawing.y[to] - half_height, 110, 110, 125, 170});
  }
}

void Viewer::set_grouped(bool grouped) {
  if (!graph_ || grouped == grouped_) return;
  grouped_ = grouped;
  if (grouped_) {
    renderer_->upload(group_instances_, group_edges_);
  } else {
    recolour();  // uploads the node geometry
  }
  fit_view();
}

bool Viewer::busy() const { return (pending_ && !drawing_held_) || (session_ && !session_->done()); }

void Viewer::work(double budget_ms) {
  if (pending_ && !drawing_held_) {
    pending_->step(budget_ms);
    if (pending_->drawn()) show_loaded();
  }
  if (session_) session_->step(budget_ms);
  after_work();
}

void Viewer::after_work() {
  if (!session_) return;
  if (selected_config_ < 0 && session_->ranked() && !session_->order().empty()) selected_config_ = session_->order().front();
  if (session_->ranked() && !what_if_ranked_) update_what_if();  // its rank among all configs, now known
  if (explanation_shown_ || !session_->explained()) return;
  explanation_shown_ = true;
  colouring_ = session_->explained_compare() ? Colouring::Compare : Colouring::Contribution;
  recolour();
}

void Viewer::update_neighbourhood() {
  in_neighbourhood_.clear();
  if (graph_ && selected_node_ >= 0 && k_hops_ > 0) in_neighbourhood_ = session_->neighbourhood(selected_node_, k_hops_);
}

bool Viewer::node_screen_position(int32_t node, float& x, float& y) const {
  if (!graph_ || node < 0 || node >= graph_->node_count) return false;
  camera_.to_screen(drawing().x[static_cast<size_t>(node)], drawing().y[static_cast<size_t>(node)], width_, height_, x, y);
  return true;
}

void Viewer::select_node(int32_t node) {
  if (!graph_ || node < -1 || node >= graph_->node_count) return;
  selected_node_ = node;
  update_neighbourhood();
  recolour();
}

void Viewer::select_config(int32_t config) {
  if (!graph_ || config < 0 || config >= graph_->config_count) return;
  selected_config_ = config;
  if (graph_->kind == GraphKind::Layout) what_if_ = layout_config_values(*graph_, config);
  update_what_if();
}

void Viewer::set_demos(const nlohmann::json& demos) { demos_ = demos.is_array() ? demos : nlohmann::json::array(); }

void Viewer::update_what_if() {
  if (!session_->explainable() || what_if_.empty()) return;
  what_if_result_ = session_->what_if(what_if_);
  what_if_ranked_ = session_->ranked();
}

void Viewer::explain_selected(bool compare) {
  if (selected_config_ < 0 || (compare && compare_config_ < 0)) return;
  explanation_shown_ = false;
  compare ? session_->compare(selected_config_, compare_config_) : session_->explain(selected_config_);
}

void Viewer::centre_on(int32_t node) {
  select_node(node);
  camera_.centre_x = drawing().x[static_cast<size_t>(node)], camera_.centre_y = drawing().y[static_cast<size_t>(node)];
}

namespace {
// 21918 -> "21,918": sizes a person reads at a glance.
std::string with_thousands(int64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0 && digits[static_cast<size_t>(i - 1)] != '-'; i -= 3)
    digits.insert(static_cast<size_t>(i), ",");
  return digits;
}
}  // namespace

std::string Viewer::summary() const {
  if (!graph_) return "";
  const bool tile = graph_->kind == GraphKind::Tile;
  std::string line =
      session_->file() + ": " + (tile ? "a tile kernel of " : "an XLA graph of ") + with_thousands(graph_->node_count) + " nodes";
  if (!tile) line += " (" + with_thousands(graph_->configurable_count()) + " with a layout to choose)";
  line += ", " + with_thousands(graph_->config_count) + (tile ? " tile sizes" : " layout configs") + ". ";
  if (!session_->ranked()) {
    char progress[64];
    std::snprintf(progress, sizeof progress, "Ranking them with the cost model: %.0f%%", 100 * session_->ranking_progress());
    return line + progress;
  }
  char text[400];
  const int32_t pick = session_->order().front();
  const SpeedupEstimate predicted = session_->predicted_speedup();
  if (predicted.supported) {
    std::snprintf(text, sizeof text, "The model's pick (config %d) is %.3gx as fast as config 0, predicted (%.3gx to %.3gx)", pick,
                  predicted.value, predicted.low, predicted.high);
  } else {
    std::snprintf(text, sizeof text, "The model's pick: config %d (no predicted speedup: %s)", pick, predicted.reason.c_str());
  }
  line += text;
  if (session_->metrics().labelled) {
    std::snprintf(text, sizeof text, "; %.3gx measured.", session_->metrics().measured_speedup);
    line += text;
  } else {
    line += ".";
  }
  return line;
}

nlohmann::json Viewer::state() const {
  nlohmann::json state = {{"error", error_}, {"loaded", graph_ != nullptr}, {"frame_ms", frame_ms_}};
  if (pending_) {
    state["loading"] = pending_->loading_state();
    state["loading"]["held"] = drawing_held_;
  }
  if (!graph_) return state;
  state.update(session_->state());
  state["grouped"] = grouped_;
  state["selected_node"] = selected_node_;
  state["selected_config"] = selected_config_;
  state["summary"] = summary();
  if (session_->ranked()) {
    state["ranking_columns"] = ranking_columns();
    if (session_->metrics().labelled) {
      const ScatterAxes axes = scatter();
      auto ticks = [](const std::vector<AxisTick>& list) {
        nlohmann::json labels = nlohmann::json::array();
        for (const AxisTick& tick : list) labels.push_back(tick.label);
        return labels;
      };
      state["scatter"] = {{"title", axes.title}, {"x_label", axes.x_label}, {"y_label", axes.y_label}, {"x_note", axes.x_note},
                          {"x_ticks", ticks(axes.x_ticks)}, {"y_ticks", ticks(axes.y_ticks)}};
    }
  }
  if (selected_node_ >= 0) state["inspector"] = session_->node_state(selected_node_);
  state["camera"] = {{"centre_x", camera_.centre_x}, {"centre_y", camera_.centre_y}, {"scale", camera_.scale}};
  state["view"] = {{"x", camera_.centre_x},
                   {"y", camera_.centre_y},
                   {"zoom", camera_.scale / std::max(1e-9f, fit_camera().scale)},
                   {"grouped", grouped_}};
  state["canvas"] = {{"width", width_}, {"height", height_}, {"pixel_ratio", pixel_ratio_}};
  return state;
}

nlohmann::json Viewer::find_nodes_json(const std::string& text) const {
  nlohmann::json found = nlohmann::json::array();
  if (!session_) return found;
  for (const int32_t node : session_->find_nodes(text, 500)) found.push_back(session_->node_state(node));
  return found;
}

}  // namespace graphcost::app
