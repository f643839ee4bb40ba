#include "viewer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <emscripten.h>

#include "common/error_exit.h"

namespace graphcost::app {

Viewer::Viewer(std::string model_dir) : models_(std::move(model_dir)) {
  renderer_ = std::make_unique<GraphRenderer>();
  // Which panel columns the visitor left open last time (the page's localStorage; both by default).
  // The block is JavaScript: clang-format would split its === into "== =".
  // clang-format off
  const int panels = EM_ASM_INT({
    try {
      const v = localStorage.getItem("graphcost.panels");
      return v === null ? 3 : Number(v) & 3;
    } catch (e) {
      return 3;
    }
  });
  // clang-format on
  left_open_ = (panels & 1) != 0, right_open_ = (panels & 2) != 0;
}

Viewer::~Viewer() = default;

bool Viewer::open(const std::string& path, const std::string& display_name) {
  if (is_parameter_space_file(path)) return open_space(path, display_name);
  try {
    pending_ = RankingSession::open(path, display_name, models_);  // a newer file replaces one still being laid out
  } catch (const std::exception& e) {                              // the CLI's wording (common/error_exit.h)
    error_ = error_message(e);
    // A dropped file lives in MEMFS at /.glfw_dropped_files/NAME: the visitor knows it as NAME.
    for (size_t at; !display_name.empty() && path != display_name && (at = error_.find(path)) != std::string::npos;) {
      error_.replace(at, path.size(), display_name);
    }
    // Messages quote bounded excerpts of an input (common/input_error.h); this bounds the rest.
    constexpr size_t kMaxShown = 4000;
    if (error_.size() > kMaxShown) error_ = error_.substr(0, kMaxShown) + "... (" + std::to_string(error_.size()) + " bytes)";
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
  pending_->drawing().finish_early();
  show_loaded();
}

void Viewer::show_loaded() {
  tune_.reset();
  space_.reset();
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
  selected_box_ = -1;
  auto_explained_ = false;
  explaining_config_ = explaining_other_ = explained_config_ = explained_other_ = -1;
  last_toggle_ = nullptr;
  box_cost_.clear();
  box_cost_total_ = 0;
  grouped_ = true;  // the nested view first: a few dozen labelled boxes, not a cloud of nodes
  build_geometry();
  build_box_geometry();
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
  for (const EdgeSegment& e : session_->drawing().edge_segments()) {
    edge_instances_.push_back(e.stub ? EdgeInstance{e.x0, e.y0, e.x1, e.y1, 150, 150, 170, 110}
                                     : EdgeInstance{e.x0, e.y0, e.x1, e.y1, 120, 120, 130, 120});
  }
  recolour();
}

void Viewer::recolour() {
  if (!graph_) return;
  if (grouped_) {
    build_box_geometry();
    return;
  }
  StyleInputs inputs;
  inputs.colouring = colouring_;
  inputs.section_of = &session_->drawing().section_of();
  inputs.contribution = explanation_shown_ ? &session_->explanation().node_contribution() : nullptr;
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
  DrawingBox whole;
  whole.add(0, 0);
  if (grouped_) {
    whole.add(session_->drawing().hierarchy().width(), session_->drawing().hierarchy().height());
  } else {
    whole.add(drawing().width, drawing().height);
  }
  return width_ > 0 && height_ > 0 ? Camera::framing(whole, width_, height_, grouped_ ? 0.97f : 0.92f, grouped_ ? 0.5f : 4, camera_)
                                   : Camera{(whole.min_x + whole.max_x) / 2, (whole.min_y + whole.max_y) / 2, 10};
}

void Viewer::fit_view() {
  // The top level wraps towards the graph area's shape, so its boxes come out as large as they can.
  if (grouped_ && width_ > 0 && height_ > 0) {
    session_->drawing().hierarchy().set_top_aspect(static_cast<float>(width_) / static_cast<float>(height_));
    build_box_geometry();
  }
  camera_ = fit_camera();
}

void Viewer::set_view(float centre_x, float centre_y, float zoom, bool grouped) {
  if (!graph_ || !std::isfinite(centre_x) || !std::isfinite(centre_y) || !(zoom > 0) || !std::isfinite(zoom)) return;
  set_grouped(grouped);
  camera_ = fit_camera();
  camera_.centre_x = centre_x, camera_.centre_y = centre_y;
  camera_.scale *= std::min(1e4f, std::max(1e-2f, zoom));
}

void Viewer::build_box_geometry() {
  const GraphHierarchy& boxes = session_->drawing().hierarchy();
  box_instances_.clear();
  box_frames_.clear();
  box_edges_.clear();
  // Cost on the picture: each box's part of the explained cost (the occlusion explanation of the
  // selected config: a node's contribution is the change in predicted cost when its layout is
  // reset to the most common one), as a share of all nodes' contributions in magnitude.
  const std::vector<float>& contribution = session_->explanation().node_contribution();
  const bool costed = explanation_shown_ && !contribution.empty();
  box_cost_ = costed ? boxes.cluster_sums(contribution) : std::vector<double>();
  box_cost_total_ = 0;
  if (costed) {
    for (const float c : contribution) box_cost_total_ += std::fabs(c);
  }
  auto cost_colour = [&](double value, uint8_t& r, uint8_t& g, uint8_t& b) {
    const double share = box_cost_total_ > 0 ? value / box_cost_total_ : 0;
    diverging_colour(static_cast<float>((share < 0 ? -1 : 1) * std::sqrt(std::fabs(share))), r, g, b);
  };
  for (const int32_t frame : boxes.frames()) {
    const HierarchyCluster& c = boxes.cluster(frame);
    const uint8_t shade = static_cast<uint8_t>(std::max(200, 246 - 10 * c.depth));
    box_frames_.push_back({c.x, c.y, c.half_width, c.half_height, shade, shade, static_cast<uint8_t>(std::min(255, shade + 6)), 255});
    if (frame == selected_box_) box_frames_.back().r = 255, box_frames_.back().g = 236, box_frames_.back().b = 200;
  }
  StyleInputs inputs;
  inputs.colouring = colouring_;
  inputs.section_of = &session_->drawing().section_of();
  inputs.contribution = explanation_shown_ ? &contribution : nullptr;
  inputs.neighbourhood = &in_neighbourhood_;
  inputs.selected_node = selected_node_;
  const std::vector<NodeStyle> styles = style_nodes(*graph_, inputs);
  for (const HierarchyItem& item : boxes.visible()) {
    if (item.cluster) {
      const HierarchyCluster& c = boxes.cluster(item.id);
      NodeInstance box{c.x, c.y, c.half_width, c.half_height, 196, 212, 236, 255};
      if (costed) cost_colour(box_cost_[static_cast<size_t>(item.id)], box.r, box.g, box.b);
      if (item.id == selected_box_) box.r = 255, box.g = 200, box.b = 120;
      box_instances_.push_back(box);
    } else {
      float x = 0, y = 0;
      boxes.node_centre(item.id, x, y);
      const NodeStyle& style = styles[static_cast<size_t>(item.id)];
      box_instances_.push_back({x, y, GraphHierarchy::kNodeWidth / 2, GraphHierarchy::kNodeHeight / 2, style.r, style.g, style.b, style.a});
    }
  }
  auto bottom = [&](const HierarchyItem& item, float& x, float& y, bool top) {
    if (item.cluster) {
      const HierarchyCluster& c = boxes.cluster(item.id);
      x = c.x, y = top ? c.y - c.half_height : c.y + c.half_height;
    } else {
      boxes.node_centre(item.id, x, y);
      y += (top ? -1 : 1) * GraphHierarchy::kNodeHeight / 2;
    }
  };
  // The heaviest edges only, two per item in view (at least 60): the rest of a top level's skip
  // edges are clutter at a glance and cost software GL a frame step; the View panel says how many.
  std::vector<const HierarchyEdge*> heaviest;
  for (const HierarchyEdge& e : boxes.edges()) heaviest.push_back(&e);
  const size_t keep = std::min(heaviest.size(), std::max<size_t>(60, 2 * boxes.visible().size()));
  std::partial_sort(heaviest.begin(), heaviest.begin() + static_cast<std::ptrdiff_t>(keep), heaviest.end(),
                    [](const HierarchyEdge* a, const HierarchyEdge* b) { return a->weight > b->weight; });
  heaviest.resize(keep);
  box_edges_total_ = boxes.edges().size();
  for (const HierarchyEdge* heavy : heaviest) {
    const HierarchyEdge& e = *heavy;
    EdgeInstance edge{0, 0, 0, 0, 90, 95, 110, 0};
    bottom(e.from, edge.x0, edge.y0, false);
    bottom(e.to, edge.x1, edge.y1, true);
    // Weighted: an edge standing for many graph edges is darker.
    edge.a = static_cast<uint8_t>(std::min(235.0, 80 + 35 * std::log2(static_cast<double>(e.weight))));
    box_edges_.push_back(edge);
  }
  const auto upload_start = std::chrono::steady_clock::now();
  if (grouped_) renderer_->upload(box_instances_, box_edges_, box_frames_);
  upload_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - upload_start).count();
}

void Viewer::toggle_box(int32_t cluster) {
  if (!graph_ || cluster <= 0 || static_cast<size_t>(cluster) >= session_->drawing().hierarchy().clusters().size()) return;
  const auto start = std::chrono::steady_clock::now();
  GraphHierarchy& boxes = session_->drawing().hierarchy();
  const bool opening = !boxes.cluster(cluster).expanded;
  // Keep the toggled box's top-left where it is on screen: the rest moves around it.
  const DrawingBox before = boxes.box_of(cluster);
  opening ? boxes.expand(cluster) : boxes.collapse(cluster);
  const double layout_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const DrawingBox after = boxes.box_of(cluster);
  camera_.centre_x += after.min_x - before.min_x;
  camera_.centre_y += after.min_y - before.min_y;
  if (opening) {
    // The opened box in view, its children's labels legible: zoom in up to the scale where a
    // closed box holds its title (never beyond framing the opened box), then move it into view.
    const float fit_scale = Camera::framing(after, width_, height_, 0.97f, 0.3f, camera_).scale;
    const float legible_scale = 150 * pixel_ratio_ / GraphHierarchy::kClusterWidth;
    camera_.scale = std::min(fit_scale, std::max(camera_.scale, legible_scale));
    const float view_w = static_cast<float>(width_) / camera_.scale, view_h = static_cast<float>(height_) / camera_.scale;
    const float margin = 0.02f * std::min(view_w, view_h);
    auto clamp_axis = [&](float& centre, float low, float high, float view) {
      if (high - low + 2 * margin >= view) {
        centre = low - margin + view / 2;  // larger than the view: its top-left corner in view
      } else {
        centre = std::min(centre, low - margin + view / 2);
        centre = std::max(centre, high + margin - view / 2);
      }
    };
    clamp_axis(camera_.centre_x, after.min_x, after.max_x, view_w);
    clamp_axis(camera_.centre_y, after.min_y, after.max_y, view_h);
  }
  selected_box_ = cluster;
  const auto geometry_start = std::chrono::steady_clock::now();
  build_box_geometry();
  const double geometry_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - geometry_start).count();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  last_toggle_ = {{"box", cluster},
                  {"opened", opening},
                  {"ms", ms},
                  {"layout_ms", layout_ms},
                  {"geometry_ms", geometry_ms},
                  {"upload_ms", upload_ms_},
                  {"in_view", boxes.visible().size()}};
}

std::vector<std::pair<int32_t, float>> Viewer::costliest_in_box(int32_t cluster, size_t count) const {
  std::vector<std::pair<int32_t, float>> nodes;
  const std::vector<float>& contribution = session_->explanation().node_contribution();
  if (box_cost_.empty() || contribution.empty()) return nodes;
  for (const int32_t v : session_->drawing().hierarchy().subtree_nodes(cluster)) {
    if (contribution[static_cast<size_t>(v)] != 0) nodes.emplace_back(v, contribution[static_cast<size_t>(v)]);
  }
  const size_t keep = std::min(count, nodes.size());
  std::partial_sort(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(keep), nodes.end(),
                    [](const auto& a, const auto& b) { return std::fabs(a.second) > std::fabs(b.second); });
  nodes.resize(keep);
  return nodes;
}

void Viewer::set_box_view(const std::vector<int32_t>& open, int32_t centre_box, float zoom) {
  if (!graph_ || !std::isfinite(zoom) || !(zoom > 0)) return;
  set_grouped(true);
  GraphHierarchy& boxes = session_->drawing().hierarchy();
  for (const int32_t box : open) {
    if (box > 0 && static_cast<size_t>(box) < boxes.clusters().size()) {
      // A box opens only inside open boxes: its ancestors first (a link lists them outermost first).
      const int32_t parent = boxes.cluster(box).parent;
      if (parent == 0 || boxes.cluster(parent).expanded) boxes.expand(box);
    }
  }
  build_box_geometry();
  camera_ = fit_camera();
  camera_.scale *= std::min(1e4f, std::max(1e-2f, zoom));
  if (centre_box > 0 && static_cast<size_t>(centre_box) < boxes.clusters().size()) {
    camera_.centre_x = boxes.cluster(centre_box).x, camera_.centre_y = boxes.cluster(centre_box).y;
  }
}

std::string Viewer::box_cost_text(int32_t cluster) const {
  if (box_cost_.empty() || box_cost_total_ <= 0 || cluster < 0 || static_cast<size_t>(cluster) >= box_cost_.size()) return "";
  const double share = 100 * box_cost_[static_cast<size_t>(cluster)] / box_cost_total_;
  char text[48];
  std::snprintf(text, sizeof text, std::fabs(share) < 0.5 ? "%+.1f%% cost" : "%+.0f%% cost", share);
  return text;
}

nlohmann::json Viewer::boxes_json() const {
  nlohmann::json list = nlohmann::json::array();
  if (!graph_ || !grouped_) return list;
  const GraphHierarchy& boxes = session_->drawing().hierarchy();
  auto add = [&](int32_t id, bool open) {
    const HierarchyCluster& c = boxes.cluster(id);
    float x0, y0, x1, y1;
    camera_.to_screen(c.x - c.half_width, c.y - c.half_height, width_, height_, x0, y0);
    camera_.to_screen(c.x + c.half_width, c.y + c.half_height, width_, height_, x1, y1);
    const float css = 1 / std::max(1e-6f, pixel_ratio_);
    x0 += static_cast<float>(area_x_), x1 += static_cast<float>(area_x_);
    y0 += static_cast<float>(area_y_), y1 += static_cast<float>(area_y_);
    list.push_back({{"id", id},
                    {"title", c.title},
                    {"nodes", c.node_count},
                    {"open", open},
                    {"x", (x0 + x1) / 2 * css},
                    {"y", (y0 + y1) / 2 * css},
                    {"top", y0 * css},
                    {"width", (x1 - x0) * css},
                    {"height", (y1 - y0) * css},
                    {"contents", session_->drawing().cluster_contents(id)},
                    {"cost", box_cost_text(id)}});
  };
  for (const int32_t frame : boxes.frames()) add(frame, true);
  for (const HierarchyItem& item : boxes.visible()) {
    if (item.cluster) add(item.id, false);
  }
  return list;
}

void Viewer::set_grouped(bool grouped) {
  if (!graph_ || grouped == grouped_) return;
  grouped_ = grouped;
  if (grouped_) {
    build_box_geometry();  // uploads
  } else {
    recolour();  // uploads the node geometry
  }
  fit_view();
}

bool Viewer::busy() const { return (pending_ && !drawing_held_) || (session_ && !session_->done()) || (tune_ && tune_->running()); }

void Viewer::work(double budget_ms) {
  if (pending_ && !drawing_held_) {
    pending_->step(budget_ms);
    if (pending_->drawing().done()) show_loaded();
  }
  if (session_) session_->step(budget_ms);
  // One tune round a slice (a fit of the model in the page): after the graph's own work, or at once on a space.
  if (tune_ && tune_->running() && (space_ || (session_ && session_->done()))) tune_->step();
  after_work();
}

void Viewer::after_work() {
  if (!session_) return;
  if (selected_config_ < 0 && session_->ranking().done() && !session_->ranking().order().empty())
    selected_config_ = session_->ranking().order().front();
  if (session_->ranking().done() && !what_if_ranked_) update_what_if();  // its rank among all configs, now known
  // Cost on the picture from the start: the model's pick is explained as soon as it is known.
  if (session_->ranking().done() && !auto_explained_ && session_->explainable() && selected_config_ >= 0) {
    auto_explained_ = true;
    explain_selected();
  }
  if (explanation_shown_ || !session_->explanation().done()) return;
  explanation_shown_ = true;
  explained_config_ = explaining_config_, explained_other_ = explaining_other_;
  colouring_ = session_->explanation().compared() ? Colouring::Compare : Colouring::Contribution;
  recolour();
}

void Viewer::update_neighbourhood() {
  in_neighbourhood_.clear();
  if (graph_ && selected_node_ >= 0 && k_hops_ > 0) in_neighbourhood_ = session_->neighbourhood(selected_node_, k_hops_);
}

bool Viewer::node_screen_position(int32_t node, float& x, float& y) const {
  if (!graph_ || node < 0 || node >= graph_->node_count) return false;
  float wx = drawing().x[static_cast<size_t>(node)], wy = drawing().y[static_cast<size_t>(node)];
  if (grouped_ && !session_->drawing().hierarchy().node_centre(node, wx, wy)) return false;  // inside a closed box
  camera_.to_screen(wx, wy, width_, height_, x, y);
  x += static_cast<float>(area_x_), y += static_cast<float>(area_y_);
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
  what_if_result_ = session_->ranking().what_if(what_if_);
  what_if_ranked_ = session_->ranking().done();
}

void Viewer::explain_selected(bool compare) {
  if (selected_config_ < 0 || (compare && compare_config_ < 0)) return;
  explanation_shown_ = false;
  compare ? session_->compare(selected_config_, compare_config_) : session_->explain(selected_config_);
  explaining_config_ = selected_config_;
  explaining_other_ = compare ? compare_config_ : -1;
  if (grouped_) build_box_geometry();  // the previous explanation's box costs go with it
}

std::string Viewer::explained_configs() const {
  return explained_other_ >= 0
             ? "the difference between configs " + std::to_string(explained_config_) + " and " + std::to_string(explained_other_)
             : "config " + std::to_string(explained_config_);
}

void Viewer::centre_on(int32_t node) {
  if (grouped_) {  // open the boxes on the way to it
    session_->drawing().hierarchy().reveal(node);
    select_node(node);
    float x = 0, y = 0;
    session_->drawing().hierarchy().node_centre(node, x, y);
    camera_.centre_x = x, camera_.centre_y = y;
    camera_.scale = std::max(camera_.scale, 60.0f * pixel_ratio_ / GraphHierarchy::kNodeWidth);  // its name readable
    return;
  }
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
  if (!session_->ranking().done()) {
    char progress[64];
    std::snprintf(progress, sizeof progress, "Ranking them with the cost model: %.0f%%", 100 * session_->ranking().progress());
    return line + progress;
  }
  char text[400];
  const int32_t pick = session_->ranking().order().front();
  const SpeedupEstimate predicted = session_->ranking().predicted_speedup();
  if (predicted.supported) {
    std::snprintf(text, sizeof text, "The model's pick (config %d) is %.3gx as fast as config 0, predicted (%.3gx to %.3gx)", pick,
                  predicted.value, predicted.low, predicted.high);
  } else {
    std::snprintf(text, sizeof text, "The model's pick: config %d (no predicted speedup: %s)", pick, predicted.reason.c_str());
  }
  line += text;
  if (session_->ranking().metrics().labelled) {
    std::snprintf(text, sizeof text, "; %.3gx measured.", session_->ranking().metrics().measured_speedup);
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
  if (space_) {
    state["space"] = space_state();
    if (tune_) state["tune"] = tune_->state();
    state["panels"] = panel_rects_;
  }
  if (!graph_) return state;
  state.update(session_->state());
  if (tune_) state["tune"] = tune_->state();
  state["grouped"] = grouped_;
  if (grouped_) {
    nlohmann::json costliest = nlohmann::json::array();
    if (selected_box_ > 0) {
      for (const auto& [node, contribution] : costliest_in_box(selected_box_, 8))
        costliest.push_back({{"node", node}, {"contribution", contribution}});
    }
    state["boxes"] = {
        {"costliest", costliest},
        {"edges_drawn", box_edges_.size()},
        {"edges", box_edges_total_},
        {"labels", {{"drawn", label_stats_.drawn}, {"legible", label_stats_.legible}, {"overlapping", label_stats_.overlapping}}},
        {"cost_shown", !box_cost_.empty()},
        {"selected", selected_box_}};
    if (!last_toggle_.is_null()) state["boxes"]["last_toggle"] = last_toggle_;
  }
  state["selected_node"] = selected_node_;
  state["selected_config"] = selected_config_;
  state["summary"] = summary();
  if (session_->ranking().done()) {
    state["ranking_columns"] = ranking_columns();
    if (session_->ranking().metrics().labelled) {
      const ScatterAxes axes = scatter();
      auto ticks = [](const std::vector<AxisTick>& list) {
        nlohmann::json labels = nlohmann::json::array();
        for (const AxisTick& tick : list) labels.push_back(tick.label);
        return labels;
      };
      state["scatter"] = {{"title", axes.title},   {"x_label", axes.x_label},        {"y_label", axes.y_label},
                          {"x_note", axes.x_note}, {"x_ticks", ticks(axes.x_ticks)}, {"y_ticks", ticks(axes.y_ticks)}};
    }
  }
  if (selected_node_ >= 0) state["inspector"] = session_->node_state(selected_node_);
  state["camera"] = {{"centre_x", camera_.centre_x}, {"centre_y", camera_.centre_y}, {"scale", camera_.scale}};
  state["view"] = {{"x", camera_.centre_x},
                   {"y", camera_.centre_y},
                   {"zoom", camera_.scale / std::max(1e-9f, fit_camera().scale)},
                   {"grouped", grouped_}};
  if (grouped_) {
    // A link to the nested view names the open boxes (outermost first) and the box at the centre,
    // so it shows the same boxes in another window size, where the top level wraps differently.
    const GraphHierarchy& boxes = session_->drawing().hierarchy();
    state["view"]["open"] = boxes.frames();
    // The box under the centre: a closed box, else the innermost open box holding it, else the
    // nearest box (the centre between boxes).
    const GraphHierarchy::Hit centre = boxes.hit(camera_.centre_x, camera_.centre_y);
    int32_t at = centre.item.cluster ? centre.item.id : -1;
    float nearest = 1e30f;
    auto distance = [&](int32_t box) {
      const DrawingBox b = boxes.box_of(box);
      const float dx = std::max({b.min_x - camera_.centre_x, 0.0f, camera_.centre_x - b.max_x});
      const float dy = std::max({b.min_y - camera_.centre_y, 0.0f, camera_.centre_y - b.max_y});
      return dx * dx + dy * dy;
    };
    if (at < 0) {
      for (const int32_t frame : boxes.frames()) {
        if (distance(frame) == 0) at = frame;  // frames are outermost first: the last is innermost
      }
    }
    if (at < 0) {
      for (const HierarchyItem& item : boxes.visible()) {
        if (item.cluster && distance(item.id) < nearest) nearest = distance(item.id), at = item.id;
      }
    }
    state["view"]["box"] = at;
  }
  state["canvas"] = {{"width", canvas_width_}, {"height", canvas_height_}, {"pixel_ratio", pixel_ratio_}};
  const float css = 1 / std::max(1e-6f, pixel_ratio_);
  state["graph_area"] = {{"x", static_cast<float>(area_x_) * css},
                         {"y", static_cast<float>(area_y_) * css},
                         {"width", static_cast<float>(width_) * css},
                         {"height", static_cast<float>(height_) * css}};
  state["panels"] = panel_rects_;
  state["panel_columns"] = {{"left", left_open_}, {"right", right_open_}};
  return state;
}

nlohmann::json Viewer::find_nodes_json(const std::string& text) const {
  nlohmann::json found = nlohmann::json::array();
  if (!session_) return found;
  for (const int32_t node : session_->find_nodes(text, 500)) found.push_back(session_->node_state(node));
  return found;
}

}  // namespace graphcost::app
