#include "viewer.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>

#include "common/input_error.h"
#include "data/graph_summary.h"
#include "data/node_features.h"
#include "data/opcodes.h"
#include "imgui.h"
#include "metrics/ranking_metrics.h"

namespace graphcost::app {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

// A stable, distinct colour per category (golden-ratio hue steps), muted for a light background.
void category_colour(int index, uint8_t& r, uint8_t& g, uint8_t& b) {
  const float hue = std::fmod(0.13f + 0.618034f * static_cast<float>(index), 1.0f);
  float fr, fg, fb;
  ImGui::ColorConvertHSVtoRGB(hue, 0.45f, 0.92f, fr, fg, fb);
  r = static_cast<uint8_t>(fr * 255), g = static_cast<uint8_t>(fg * 255), b = static_cast<uint8_t>(fb * 255);
}

// Diverging blue (negative) - grey - red (positive) for contributions in [-1, 1].
void diverging_colour(float t, uint8_t& r, uint8_t& g, uint8_t& b) {
  t = std::max(-1.0f, std::min(1.0f, t));
  const float grey = 0.85f;
  const float fr = t > 0 ? grey + (0.86f - grey) * t : grey + (0.20f - grey) * -t;
  const float fg = t > 0 ? grey + (0.18f - grey) * t : grey + (0.40f - grey) * -t;
  const float fb = t > 0 ? grey + (0.15f - grey) * t : grey + (0.85f - grey) * -t;
  r = static_cast<uint8_t>(fr * 255), g = static_cast<uint8_t>(fg * 255), b = static_cast<uint8_t>(fb * 255);
}

}  // namespace

Viewer::Viewer(std::string model_dir) : model_dir_(std::move(model_dir)) { renderer_ = std::make_unique<GraphRenderer>(); }

Viewer::~Viewer() = default;

bool Viewer::open(const std::string& path, const std::string& display_name) {
  const auto start = Clock::now();
  auto pending = std::make_unique<PendingGraph>();
  try {
    pending->graph = std::make_unique<TpuGraph>(load_tpu_graph(path));
    pending->model_path = model_dir_ + (pending->graph->kind == GraphKind::Tile ? "/tile_xla.npz" : "/layout_xla.npz");
    if (!model_ || model_path_ != pending->model_path) pending->model = std::make_unique<CostModel>(CostModel::load(pending->model_path));
    std::vector<std::pair<int32_t, int32_t>> edges;
    edges.reserve(pending->graph->edges.size());
    for (const Edge& e : pending->graph->edges) edges.emplace_back(e.producer, e.consumer);
    pending->layout = std::make_unique<DagLayoutJob>(pending->graph->node_count, std::move(edges));
  } catch (const InputError& e) {
    error_ = e.what();
    return false;
  } catch (const std::exception& e) {
    error_ = std::string(path) + ": " + e.what();
    return false;
  }
  pending->file = display_name.empty() ? path : display_name;
  pending->load_ms = ms_since(start);
  pending_ = std::move(pending);  // a newer file replaces one still being laid out
  error_.clear();
  return true;
}

void Viewer::continue_layout(double budget_ms) {
  if (!pending_ || layout_held_) return;
  const auto start = Clock::now();
  while (!pending_->layout->done() && ms_since(start) < budget_ms) pending_->layout->step();
  pending_->layout_ms += ms_since(start);
  if (pending_->layout->done()) show_loaded();
}

void Viewer::stop_layout(bool keep_rough) {
  if (!pending_) return;
  if (!keep_rough) {
    pending_.reset();
    return;
  }
  const auto start = Clock::now();
  pending_->layout->finish_early();
  pending_->layout_ms += ms_since(start);
  show_loaded();
}

void Viewer::show_loaded() {
  std::unique_ptr<PendingGraph> pending = std::move(pending_);
  // Everything that refers to the old graph goes first.
  explain_job_.reset();
  search_.reset();
  inference_.reset();
  prepared_.reset();
  if (pending->model) {
    model_ = std::move(pending->model);
    model_path_ = pending->model_path;
  }
  graph_ = std::move(pending->graph);
  file_ = pending->file;
  load_ms_ = pending->load_ms;
  layout_ = pending->layout->take();
  layout_ms_ = pending->layout_ms;
  selected_node_ = hovered_node_ = -1;
  selected_config_ = compare_config_ = -1;
  have_contributions_ = false;
  what_if_.clear();
  search_results_.clear();
  in_neighbourhood_.clear();
  if (colouring_ == Colouring::Contribution || colouring_ == Colouring::Compare) colouring_ = Colouring::Opcode;
  section_of_.assign(static_cast<size_t>(graph_->node_count), 0);
  for (size_t s = 0; s + 1 < graph_->node_splits.size(); ++s) {
    for (int64_t v = graph_->node_splits[s]; v < graph_->node_splits[s + 1] && v < graph_->node_count; ++v) {
      section_of_[static_cast<size_t>(v)] = static_cast<int32_t>(s);
    }
  }
  build_geometry();
  build_groups();
  grouped_ = false;
  fit_view();
  start_ranking();
}

void Viewer::build_geometry() {
  node_instances_.clear();
  edge_instances_.clear();
  if (!graph_) return;
  const LayoutOptions options;
  for (int32_t v = 0; v < graph_->node_count; ++v) {
    node_instances_.push_back({layout_.x[static_cast<size_t>(v)], layout_.y[static_cast<size_t>(v)], options.node_width / 2,
                               options.node_height / 2, 200, 200, 200, 255});
  }
  for (const Edge& e : graph_->edges) {
    const size_t p = static_cast<size_t>(e.producer), c = static_cast<size_t>(e.consumer);
    const float cx = layout_.x[c], cy = layout_.y[c] - options.node_height / 2;
    if (layout_.stub[p]) {  // a detached high fan-out producer: a short stub into the consumer
      edge_instances_.push_back({cx - 0.25f, cy - 0.35f, cx, cy, 150, 150, 170, 110});
    } else {
      edge_instances_.push_back({layout_.x[p], layout_.y[p] + options.node_height / 2, cx, cy, 120, 120, 130, 120});
    }
  }
  recolour();
}

void Viewer::recolour() {
  if (!graph_ || grouped_) return;
  std::vector<char> configurable(static_cast<size_t>(graph_->node_count), 0);
  for (int32_t v : graph_->configurable_nodes) configurable[static_cast<size_t>(v)] = 1;
  float largest = 1e-12f;
  for (float c : node_contribution_) largest = std::max(largest, std::fabs(c));
  const LayoutOptions layout_options;
  for (int32_t v = 0; v < graph_->node_count; ++v) {
    NodeInstance& n = node_instances_[static_cast<size_t>(v)];
    n.a = 255;
    // Nodes an overlay is about are drawn larger, at least 8 CSS pixels wide, so a few among 20k
    // stand out at any zoom (frame() calls recolour() again when the zoom changes a lot).
    float grow = 1.0f;
    const float at_least = 8.0f * pixel_ratio_ / std::max(1e-6f, camera_.scale * layout_options.node_width);
    if (colouring_ == Colouring::Configurable && configurable[static_cast<size_t>(v)]) grow = std::max(2.0f, at_least);
    if ((colouring_ == Colouring::Contribution || colouring_ == Colouring::Compare) && have_contributions_ && !node_contribution_.empty() &&
        node_contribution_[static_cast<size_t>(v)] != 0) {
      grow = std::max(3.0f, at_least);
    }
    n.half_width = grow * layout_options.node_width / 2;
    n.half_height = grow * layout_options.node_height / 2;
    switch (colouring_) {
      case Colouring::Opcode:
        category_colour(graph_->node_opcodes[static_cast<size_t>(v)], n.r, n.g, n.b);
        break;
      case Colouring::Section:
        category_colour(section_of_[static_cast<size_t>(v)], n.r, n.g, n.b);
        break;
      case Colouring::Configurable:
        if (configurable[static_cast<size_t>(v)]) {
          n.r = 235, n.g = 140, n.b = 30;
        } else {
          n.r = n.g = n.b = 215;
        }
        break;
      case Colouring::Contribution:
      case Colouring::Compare:
        if (have_contributions_ && !node_contribution_.empty()) {
          // Square-root scale: a node with 1% of the largest contribution is still visibly tinted.
          const float t = node_contribution_[static_cast<size_t>(v)] / largest;
          diverging_colour(std::copysign(std::sqrt(std::fabs(t)), t), n.r, n.g, n.b);
          if (t == 0) n.a = 90;  // not explained: faded
        } else {
          n.r = n.g = n.b = 215;
        }
        break;
    }
    if (!in_neighbourhood_.empty() && !in_neighbourhood_[static_cast<size_t>(v)]) n.a = 40;
    if (v == selected_node_) n.r = 20, n.g = 20, n.b = 20;
  }
  renderer_->upload(node_instances_, edge_instances_);
  sized_for_scale_ = camera_.scale;
}

void Viewer::fit_view() {
  const DagLayout& shown = grouped_ ? group_layout_ : layout_;
  if (!graph_ || width_ <= 0 || height_ <= 0) {
    camera_ = Camera{shown.width / 2, shown.height / 2, 10};
    return;
  }
  camera_.centre_x = shown.width / 2;
  camera_.centre_y = shown.height / 2;
  camera_.scale = 0.92f * std::min(static_cast<float>(width_) / std::max(1.0f, shown.width + 4),
                                   static_cast<float>(height_) / std::max(1.0f, shown.height + 4));
}

namespace {
// The grouped view's geometry: boxes up to kGroupWidth wide, spaced for that.
constexpr float kGroupWidth = 4.0f, kGroupHeight = 1.5f;
}  // namespace

void Viewer::build_groups() {
  const int32_t n = graph_->node_count;
  group_of_.assign(static_cast<size_t>(n), 0);
  int32_t groups = 1;
  if (graph_->node_splits.size() >= 4) {  // at least 3 sections
    group_of_ = section_of_;
    groups = static_cast<int32_t>(graph_->node_splits.size()) - 1;
    group_kind_ = "section";
  } else {
    const int32_t band = std::max(1, (layout_.layer_count + 39) / 40);
    for (int32_t v = 0; v < n; ++v) group_of_[static_cast<size_t>(v)] = layout_.layer[static_cast<size_t>(v)] / band;
    groups = std::max(1, (layout_.layer_count + band - 1) / band);
    group_kind_ = "layers " + std::to_string(band) + " deep";
  }
  group_size_.assign(static_cast<size_t>(groups), 0);
  for (int32_t g : group_of_) ++group_size_[static_cast<size_t>(g)];
  std::vector<std::pair<int32_t, int32_t>> edges;
  std::vector<char> seen(static_cast<size_t>(groups) * static_cast<size_t>(groups), 0);
  for (const Edge& e : graph_->edges) {
    const int32_t a = group_of_[static_cast<size_t>(e.producer)], b = group_of_[static_cast<size_t>(e.consumer)];
    if (a == b || seen[static_cast<size_t>(a) * static_cast<size_t>(groups) + static_cast<size_t>(b)]) continue;
    seen[static_cast<size_t>(a) * static_cast<size_t>(groups) + static_cast<size_t>(b)] = 1;
    edges.emplace_back(a, b);
  }
  LayoutOptions options;
  options.node_width = kGroupWidth;
  options.node_height = kGroupHeight;
  options.horizontal_gap = 1.0f;
  options.layer_gap = 2.0f;
  options.stub_fanout = 0;
  group_layout_ = layout_dag(groups, edges, options);
  const int32_t largest = *std::max_element(group_size_.begin(), group_size_.end());
  group_instances_.clear();
  group_edges_.clear();
  for (int32_t g = 0; g < groups; ++g) {
    const float share = std::sqrt(static_cast<float>(group_size_[static_cast<size_t>(g)]) / static_cast<float>(std::max(1, largest)));
    NodeInstance box{group_layout_.x[static_cast<size_t>(g)],
                     group_layout_.y[static_cast<size_t>(g)],
                     kGroupWidth / 2 * (0.35f + 0.65f * share),
                     kGroupHeight / 2,
                     0,
                     0,
                     0,
                     255};
    category_colour(g, box.r, box.g, box.b);
    group_instances_.push_back(box);
  }
  for (const auto& [a, b] : edges) {
    group_edges_.push_back({group_layout_.x[static_cast<size_t>(a)], group_layout_.y[static_cast<size_t>(a)] + kGroupHeight / 2,
                            group_layout_.x[static_cast<size_t>(b)], group_layout_.y[static_cast<size_t>(b)] - kGroupHeight / 2, 110, 110,
                            125, 170});
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

int32_t Viewer::group_at(float world_x, float world_y) const {
  for (size_t g = 0; g < group_instances_.size(); ++g) {
    const NodeInstance& box = group_instances_[g];
    if (std::fabs(world_x - box.x) <= box.half_width && std::fabs(world_y - box.y) <= box.half_height) return static_cast<int32_t>(g);
  }
  return -1;
}

void Viewer::frame_nodes(int32_t group) {
  float x0 = 1e30f, x1 = -1e30f, y0 = 1e30f, y1 = -1e30f;
  for (int32_t v = 0; v < graph_->node_count; ++v) {
    if (group_of_[static_cast<size_t>(v)] != group) continue;
    x0 = std::min(x0, layout_.x[static_cast<size_t>(v)]), x1 = std::max(x1, layout_.x[static_cast<size_t>(v)]);
    y0 = std::min(y0, layout_.y[static_cast<size_t>(v)]), y1 = std::max(y1, layout_.y[static_cast<size_t>(v)]);
  }
  if (x0 > x1) return;
  camera_.centre_x = (x0 + x1) / 2, camera_.centre_y = (y0 + y1) / 2;
  camera_.scale = 0.9f * std::min(static_cast<float>(width_) / (x1 - x0 + 2), static_cast<float>(height_) / (y1 - y0 + 2));
}

void Viewer::start_ranking() {
  costs_.clear();
  order_.clear();
  true_rank_.clear();
  unique_configs_.clear();
  unique_costs_.clear();
  ranked_unique_ = 0;
  ranking_done_ = false;
  ranking_compute_ms_ = 0;
  labelled_ = !graph_->runtimes_hidden;
  ranking_started_ = Clock::now();
  prepared_ = std::make_unique<PreparedGraph>(model_->prepare(*graph_));
  if (graph_->kind == GraphKind::Layout && !model_->couples_configs()) {
    inference_ = std::make_unique<LayoutInference>(*model_, *prepared_);
    // As CostModel::predict: identical configs predicted once (same numbers as `graphcost predict`).
    const std::vector<int32_t> representative = config_representatives(*graph_);
    slot_of_config_.assign(static_cast<size_t>(graph_->config_count), -1);
    std::vector<int32_t> slot_of_representative(static_cast<size_t>(graph_->config_count), -1);
    for (int32_t c = 0; c < graph_->config_count; ++c) {
      int32_t& slot = slot_of_representative[static_cast<size_t>(representative[static_cast<size_t>(c)])];
      if (slot < 0) {
        slot = static_cast<int32_t>(unique_configs_.size());
        unique_configs_.push_back(representative[static_cast<size_t>(c)]);
      }
      slot_of_config_[static_cast<size_t>(c)] = slot;
    }
    unique_costs_.assign(unique_configs_.size(), 0.0f);
    ranking_compute_ms_ = ms_since(ranking_started_);  // preparing the graph and the base activations
  } else {
    costs_ = model_->predict(*prepared_);  // tile kernels are small: all at once
    ranking_compute_ms_ = ms_since(ranking_started_);
    finish_ranking();
  }
}

void Viewer::continue_ranking(double budget_ms) {
  if (ranking_done_ || !inference_) return;
  const auto start = Clock::now();
  while (ranked_unique_ < unique_configs_.size() && ms_since(start) < budget_ms) {
    const size_t end = std::min(unique_configs_.size(), ranked_unique_ + 4);
    const std::vector<int32_t> chunk(unique_configs_.begin() + static_cast<std::ptrdiff_t>(ranked_unique_),
                                     unique_configs_.begin() + static_cast<std::ptrdiff_t>(end));
    const std::vector<float> costs = inference_->predict(chunk, 1);
    std::copy(costs.begin(), costs.end(), unique_costs_.begin() + static_cast<std::ptrdiff_t>(ranked_unique_));
    ranked_unique_ = end;
  }
  ranking_compute_ms_ += ms_since(start);
  if (ranked_unique_ == unique_configs_.size()) {
    costs_.resize(static_cast<size_t>(graph_->config_count));
    for (size_t c = 0; c < costs_.size(); ++c) costs_[c] = unique_costs_[static_cast<size_t>(slot_of_config_[c])];
    finish_ranking();
  }
}

void Viewer::finish_ranking() {
  order_.resize(costs_.size());
  std::iota(order_.begin(), order_.end(), 0);
  std::stable_sort(order_.begin(), order_.end(),
                   [&](int32_t a, int32_t b) { return costs_[static_cast<size_t>(a)] < costs_[static_cast<size_t>(b)]; });
  ranking_done_ = true;
  ranking_ms_ = ms_since(ranking_started_);
  if (selected_config_ < 0 && !order_.empty()) selected_config_ = order_.front();
  if (labelled_ && costs_.size() >= 2) {
    std::vector<double> runtimes(static_cast<size_t>(graph_->config_count));
    for (size_t c = 0; c < runtimes.size(); ++c) {
      runtimes[c] = static_cast<double>(graph_->config_runtime_ns[c]);
      if (graph_->kind == GraphKind::Tile) runtimes[c] /= static_cast<double>(graph_->config_runtime_normalizers_ns[c]);
    }
    std::vector<int32_t> by_runtime(runtimes.size());
    std::iota(by_runtime.begin(), by_runtime.end(), 0);
    std::stable_sort(by_runtime.begin(), by_runtime.end(),
                     [&](int32_t a, int32_t b) { return runtimes[static_cast<size_t>(a)] < runtimes[static_cast<size_t>(b)]; });
    true_rank_.assign(runtimes.size(), 0);
    for (size_t r = 0; r < by_runtime.size(); ++r) true_rank_[static_cast<size_t>(by_runtime[r])] = static_cast<int32_t>(r);
    if (graph_->kind == GraphKind::Tile) {
      tile_score_ = tile_score(runtimes, order_);
    } else {
      kendall_tau_ = layout_kendall_tau(runtimes, order_);
    }
    top5_slowdown_ = slowdown_at_k(runtimes, order_, 5);
    true_speedup_ = runtimes[0] / runtimes[static_cast<size_t>(order_.front())];
  }
}

void Viewer::continue_jobs(double budget_ms) {
  const auto start = Clock::now();
  while (explain_job_ && !explain_job_->done() && ms_since(start) < budget_ms) explain_job_->step(2);
  if (explain_job_ && explain_job_->done()) {
    contributions_ = explain_job_->result();
    explain_job_.reset();
    node_contribution_.assign(static_cast<size_t>(graph_->node_count), 0.0f);
    for (size_t i = 0; i < contributions_.slots.size(); ++i) {
      node_contribution_[static_cast<size_t>(graph_->configurable_nodes[static_cast<size_t>(contributions_.slots[i])])] =
          contributions_.contribution[i];
    }
    have_contributions_ = true;
    colouring_ = explain_is_compare_ ? Colouring::Compare : Colouring::Contribution;
    recolour();
  }
  while (search_ && !search_->done() && ms_since(start) < budget_ms) search_->step(2);
}

bool Viewer::busy() const {
  return (pending_ && !layout_held_) || (graph_ && !ranking_done_) || explain_job_ || (search_ && !search_->done());
}

void Viewer::work(double budget_ms) {
  continue_layout(budget_ms);
  continue_ranking(budget_ms);
  continue_jobs(budget_ms);
}

void Viewer::compute_neighbourhood() {
  in_neighbourhood_.clear();
  if (!graph_ || selected_node_ < 0 || k_hops_ <= 0) return;
  std::vector<std::vector<int32_t>> neighbours(static_cast<size_t>(graph_->node_count));
  for (const Edge& e : graph_->edges) {
    neighbours[static_cast<size_t>(e.producer)].push_back(e.consumer);
    neighbours[static_cast<size_t>(e.consumer)].push_back(e.producer);
  }
  in_neighbourhood_.assign(static_cast<size_t>(graph_->node_count), 0);
  std::vector<int32_t> frontier = {selected_node_};
  in_neighbourhood_[static_cast<size_t>(selected_node_)] = 1;
  for (int hop = 0; hop < k_hops_; ++hop) {
    std::vector<int32_t> next;
    for (int32_t v : frontier) {
      for (int32_t u : neighbours[static_cast<size_t>(v)]) {
        if (!in_neighbourhood_[static_cast<size_t>(u)]) {
          in_neighbourhood_[static_cast<size_t>(u)] = 1;
          next.push_back(u);
        }
      }
    }
    frontier.swap(next);
  }
}

int32_t Viewer::node_at(float world_x, float world_y) const {
  if (!graph_) return -1;
  const LayoutOptions options;
  const float slack = 2.0f / std::max(camera_.scale, 1e-6f);  // boxes are drawn at least 1 px
  for (int32_t v = 0; v < graph_->node_count; ++v) {
    if (std::fabs(world_x - layout_.x[static_cast<size_t>(v)]) <= options.node_width / 2 + slack &&
        std::fabs(world_y - layout_.y[static_cast<size_t>(v)]) <= options.node_height / 2 + slack) {
      return v;
    }
  }
  return -1;
}

bool Viewer::node_screen_position(int32_t node, float& x, float& y) const {
  if (!graph_ || node < 0 || node >= graph_->node_count) return false;
  x = (layout_.x[static_cast<size_t>(node)] - camera_.centre_x) * camera_.scale + static_cast<float>(width_) / 2;
  y = (layout_.y[static_cast<size_t>(node)] - camera_.centre_y) * camera_.scale + static_cast<float>(height_) / 2;
  return true;
}

void Viewer::select_node(int32_t node) {
  if (!graph_ || node < -1 || node >= graph_->node_count) return;
  selected_node_ = node;
  compute_neighbourhood();
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
  if (!inference_ || what_if_.empty()) return;
  what_if_cost_ = inference_->predict_values(what_if_)[0];
  what_if_rank_ = 0;
  for (float c : costs_) what_if_rank_ += c < what_if_cost_;
}

void Viewer::start_explain() {
  if (!inference_ || selected_config_ < 0) return;
  explain_is_compare_ = false;
  explain_job_ = std::make_unique<ContributionJob>(*inference_, layout_config_values(*graph_, selected_config_));
}

void Viewer::start_compare() {
  if (!inference_ || selected_config_ < 0 || compare_config_ < 0) return;
  explain_is_compare_ = true;
  explain_job_ = std::make_unique<ContributionJob>(*inference_, layout_config_values(*graph_, selected_config_),
                                                   layout_config_values(*graph_, compare_config_));
}

void Viewer::start_search() {
  if (!inference_ || !ranking_done_ || order_.empty()) return;
  search_ = std::make_unique<GreedyLayoutSearch>(*inference_, *graph_, layout_config_values(*graph_, order_.front()));
}

nlohmann::json Viewer::state() const {
  nlohmann::json state = {{"error", error_}, {"loaded", graph_ != nullptr}, {"frame_ms", frame_ms_}};
  if (pending_) {
    state["loading"] = {{"file", pending_->file},
                        {"nodes", pending_->graph->node_count},
                        {"stage", pending_->layout->stage()},
                        {"progress", pending_->layout->fraction()},
                        {"held", layout_held_}};
  }
  if (!graph_) return state;
  state["file"] = file_;
  state["kind"] = graph_->kind == GraphKind::Tile ? "tile" : "layout";
  state["nodes"] = graph_->node_count;
  state["edges"] = graph_->edges.size();
  state["configs"] = graph_->config_count;
  state["load_ms"] = load_ms_;
  state["layout"] = {{"done", !layout_.cancelled},
                     {"stopped_early", layout_.stopped_early},
                     {"ms", layout_ms_},
                     {"layers", layout_.layer_count},
                     {"width", layout_.width},
                     {"height", layout_.height},
                     {"stubs", std::count(layout_.stub.begin(), layout_.stub.end(), 1)}};
  state["model"] = model_path_;
  if (model_->calibration().fitted()) {
    const RuntimeCalibration& c = model_->calibration();
    state["calibration"] = {{"log_runtime_per_score", c.log_runtime_per_score}, {"r2", c.r2}, {"configs", c.configs}, {"graphs", c.graphs}};
  }
  state["ranking"] = {{"done", ranking_done_},
                      {"ms", ranking_ms_},
                      {"compute_ms", ranking_compute_ms_},
                      {"progress", ranking_done_             ? 1.0
                                   : unique_configs_.empty() ? 0.0
                                                             : static_cast<double>(ranked_unique_) / unique_configs_.size()}};
  if (ranking_done_) {
    if (model_->calibration().fitted() && !order_.empty()) {
      state["ranking"]["predicted_speedup"] =
          model_->calibration().predicted_speedup(costs_.front(), costs_[static_cast<size_t>(order_.front())]);
    }
    if (labelled_ && !order_.empty()) state["ranking"]["measured_speedup"] = true_speedup_;
    state["ranking"]["order"] = order_;
    state["ranking"]["costs"] = costs_;
    if (labelled_) {
      state["ranking"]["kendall_tau"] = kendall_tau_;
      state["ranking"]["tile_score"] = tile_score_;
      state["ranking"]["top5_slowdown"] = top5_slowdown_;
    }
  }
  state["grouped"] = grouped_;
  state["groups"] = group_size_.size();
  state["group_kind"] = group_kind_;
  state["selected_node"] = selected_node_;
  state["selected_config"] = selected_config_;
  if (selected_node_ >= 0) {
    state["inspector"] = {{"node", selected_node_},
                          {"opcode", opcode_name(graph_->node_opcodes[static_cast<size_t>(selected_node_)])},
                          {"features", kNodeFeatureCount}};
  }
  state["camera"] = {{"centre_x", camera_.centre_x}, {"centre_y", camera_.centre_y}, {"scale", camera_.scale}};
  state["canvas"] = {{"width", width_}, {"height", height_}, {"pixel_ratio", pixel_ratio_}};
  if (have_contributions_) state["explained_nodes"] = contributions_.slots.size();
  if (search_) state["search"] = {{"done", search_->done()}, {"start_cost", search_->start_cost()}, {"best_cost", search_->best_cost()}};
  return state;
}

}  // namespace graphcost::app
