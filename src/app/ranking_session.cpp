#include "app/ranking_session.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/memory_limit.h"
#include "data/graph_summary.h"
#include "data/node_features.h"
#include "data/opcodes.h"
#include "hlo/graph_file.h"
#include "hlo/module_file.h"
#include "metrics/ranking_metrics.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

constexpr size_t kRankingChunk = 4;  // configs per ranking unit: a few ms on a 20k-node graph
constexpr size_t kExplainChunk = 2;  // configs per explanation or search unit

}  // namespace

std::vector<std::vector<std::string>> hierarchy_paths(const TpuGraph& graph) {
  const size_t n = static_cast<size_t>(graph.node_count);
  std::vector<std::vector<std::string>> paths(n);
  if (!graph.names.empty()) {
    // Each node's namespaces: its op_name without the op itself.
    std::vector<std::vector<std::string>> spaces(n);
    for (size_t v = 0; v < n; ++v) {
      const std::string& op_name = graph.names.op_names[v];
      size_t start = 0;
      for (size_t slash = op_name.find('/'); slash != std::string::npos; slash = op_name.find('/', start)) {
        if (slash > start) spaces[v].push_back(op_name.substr(start, slash - start));
        start = slash + 1;
      }
    }
    // Instructions outside any namespace (parameters such as a layer's weights, and the reshapes,
    // broadcasts and copies XLA adds without metadata) join the namespace of a consumer in their
    // computation, else of a producer: a few passes, so chains of them follow the op they feed.
    std::vector<std::vector<int32_t>> consumers(n), producers(n);
    for (const Edge& e : graph.edges) {
      consumers[static_cast<size_t>(e.producer)].push_back(e.consumer);
      producers[static_cast<size_t>(e.consumer)].push_back(e.producer);
    }
    const std::vector<int32_t>& computation = graph.names.computation;
    for (int pass = 0; pass < 8; ++pass) {
      bool changed = false;
      for (size_t v = 0; v < n; ++v) {
        if (!spaces[v].empty()) continue;
        for (const auto* neighbours : {&consumers[v], &producers[v]}) {
          for (const int32_t u : *neighbours) {
            const size_t w = static_cast<size_t>(u);
            if (!spaces[w].empty() && computation[w] == computation[v]) {
              spaces[v] = spaces[w];
              changed = true;
              break;
            }
          }
          if (!spaces[v].empty()) break;
        }
      }
      if (!changed) break;
    }
    for (size_t v = 0; v < n; ++v) {
      paths[v].push_back(graph.names.computation_of(static_cast<int32_t>(v)));
      paths[v].insert(paths[v].end(), spaces[v].begin(), spaces[v].end());
    }
  } else if (graph.node_splits.size() >= 4) {
    for (size_t s = 0; s + 1 < graph.node_splits.size(); ++s) {
      for (int64_t v = graph.node_splits[s]; v < graph.node_splits[s + 1] && v < graph.node_count; ++v) {
        paths[static_cast<size_t>(v)].push_back("section " + std::to_string(s));
      }
    }
  }
  return paths;
}

RankingSession::RankingSession(std::unique_ptr<TpuGraph> graph, std::shared_ptr<CostModel> model, std::string model_source)
    : graph_(std::move(graph)), model_(std::move(model)), model_source_(std::move(model_source)) {
  check_invariant(graph_ != nullptr && model_ != nullptr, "RankingSession needs a graph and a model");
  check_invariant(model_->config().kind == graph_->kind, "RankingSession: the model is not of the graph's kind");
  view_ = make_graph_view(*graph_, -1);
  std::vector<std::pair<int32_t, int32_t>> edges;
  edges.reserve(graph_->edges.size());
  for (const Edge& e : graph_->edges) edges.emplace_back(e.producer, e.consumer);
  drawing_edges_ = edges;
  drawing_job_ = std::make_unique<LayeredDrawingJob>(graph_->node_count, std::move(edges));
  section_of_.assign(static_cast<size_t>(graph_->node_count), 0);
  for (size_t s = 0; s + 1 < graph_->node_splits.size(); ++s) {
    for (int64_t v = graph_->node_splits[s]; v < graph_->node_splits[s + 1] && v < graph_->node_count; ++v) {
      section_of_[static_cast<size_t>(v)] = static_cast<int32_t>(s);
    }
  }
}

RankingSession::~RankingSession() = default;

ShippedModel shipped_model_for(const TpuGraph& graph, const std::string& file) {
  if (graph.kind == GraphKind::Tile) return ShippedModel::Tile;
  if (graph.location.collection.rfind("layout:nlp:", 0) == 0) return ShippedModel::LayoutNlp;
  if (!graph.location.collection.empty()) return ShippedModel::LayoutXla;
  std::string name = file.empty() ? graph.source : file;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (size_t at = name.find("nlp"); at != std::string::npos; at = name.find("nlp", at + 1)) {
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(name[at - 1]));
    const bool ends = at + 3 == name.size() || !std::isalnum(static_cast<unsigned char>(name[at + 3]));
    if (starts && ends) return ShippedModel::LayoutNlp;
  }
  return ShippedModel::LayoutXla;
}

std::string ModelShelf::path_for(ShippedModel which) const {
  return dir_ + (which == ShippedModel::Tile ? "/tile_xla.npz" : which == ShippedModel::LayoutNlp ? "/layout_nlp.npz" : "/layout_xla.npz");
}

std::shared_ptr<CostModel> ModelShelf::model_for(ShippedModel which) {
  std::shared_ptr<CostModel>& model = loaded_[static_cast<int>(which)];
  if (!model) model = std::make_shared<CostModel>(CostModel::load(path_for(which)));
  return model;
}

std::unique_ptr<RankingSession> RankingSession::open(const std::string& path, const std::string& file, ModelShelf& models) {
  const auto start = Clock::now();
  if (!is_npz_file(path)) {
    std::error_code error;
    const uintmax_t bytes = std::filesystem::file_size(path, error);
    if (!error && bytes > kMaxModuleTextBytes) {
      throw InputError(path, "size", "a module file of at most " + format_byte_size(kMaxModuleTextBytes) +
                                         " in the app (it works on the page's one thread; `graphcost import` takes any size)",
                       format_byte_size(bytes));
    }
  }
  auto graph = std::make_unique<TpuGraph>(load_graph_file(path));  // .npz, or HLO text imported here
  if (graph->node_count > kMaxNodes) {
    throw InputError(path, "nodes", "at most " + std::to_string(kMaxNodes) + " in the app (the CLI's rank and draw take more)",
                     std::to_string(graph->node_count));
  }
  const ShippedModel which = shipped_model_for(*graph, file.empty() ? path : file);
  auto session = std::make_unique<RankingSession>(std::move(graph), models.model_for(which), models.path_for(which));
  session->file_ = file.empty() ? path : file;
  session->load_ms_ = ms_since(start);
  return session;
}

bool RankingSession::done() const { return drawn() && ranked_ && explain_job_ == nullptr && (search_ == nullptr || search_->done()); }

void RankingSession::step(double budget_ms) {
  const auto start = Clock::now();
  do {
    if (!drawn()) {
      drawing_unit();
    } else if (!ranked_) {
      ranking_unit();
    } else if (explain_job_) {
      explain_unit();
    } else if (search_ && !search_->done()) {
      search_->step(kExplainChunk);
    } else {
      return;
    }
  } while (ms_since(start) < budget_ms);
}

RankingSession::Progress RankingSession::progress() const {
  if (!drawn()) return {std::string("drawing: ") + drawing_job_->stage(), drawing_job_->fraction()};
  if (!ranked_) return {"ranking", ranking_progress()};
  if (explain_job_) return {"explaining", explain_job_->progress()};
  if (search_ && !search_->done()) return {"searching", search_->round_progress()};
  return {"done", 1.0};
}

void RankingSession::drawing_unit() {
  const auto start = Clock::now();
  drawing_job_->step();
  drawing_ms_ += ms_since(start);
  if (drawing_job_->done()) finish_drawing();
}

void RankingSession::finish_drawing_early() {
  if (drawn()) return;
  const auto start = Clock::now();
  drawing_job_->finish_early();
  drawing_ms_ += ms_since(start);
  finish_drawing();
}

void RankingSession::finish_drawing() {
  drawing_ = drawing_job_->take();
  drawing_job_.reset();
  HierarchyInput input;
  input.node_count = graph_->node_count;
  input.edges = &drawing_edges_;
  input.rank = drawing_.layer;
  input.paths = hierarchy_paths(*graph_);
  hierarchy_ = GraphHierarchy(std::move(input));
  cluster_contents_.assign(hierarchy_.clusters().size(), "");
  cluster_contents_known_.assign(hierarchy_.clusters().size(), 0);
}

const std::string& RankingSession::cluster_contents(int32_t cluster) const {
  static const std::string none;
  if (cluster < 0 || static_cast<size_t>(cluster) >= cluster_contents_.size()) return none;
  const size_t at = static_cast<size_t>(cluster);
  if (cluster_contents_known_[at]) return cluster_contents_[at];
  cluster_contents_known_[at] = 1;
  std::map<int, int> count;
  for (const int32_t v : hierarchy_.subtree_nodes(cluster)) {
    const int op = graph_->node_opcodes[static_cast<size_t>(v)];
    static const int constant = opcode_id("constant"), bitcast = opcode_id("bitcast");
    if (op == opcode::kParameter || op == constant || op == opcode::kTuple || op == opcode::kGetTupleElement || op == bitcast) continue;
    ++count[op];
  }
  std::vector<std::pair<int, int>> ranked;  // (count, opcode)
  for (const auto& [op, n] : count) ranked.emplace_back(n, op);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::string text;
  for (size_t i = 0; i < ranked.size() && i < 2; ++i) {
    text += (i ? ", " : "") + std::to_string(ranked[i].first) + " " + opcode_name(ranked[i].second);
  }
  cluster_contents_[at] = text;
  return cluster_contents_[at];
}

DrawingBox RankingSession::section_box(size_t section) const {
  DrawingBox box;
  if (!drawn() || section + 1 >= graph_->node_splits.size()) return box;
  for (int64_t v = graph_->node_splits[section]; v < graph_->node_splits[section + 1] && v < graph_->node_count; ++v) {
    box.add(drawing_.x[static_cast<size_t>(v)], drawing_.y[static_cast<size_t>(v)]);
  }
  return box;
}

std::vector<EdgeSegment> RankingSession::edge_segments() const {
  std::vector<EdgeSegment> segments;
  if (!drawn()) return segments;
  const DrawingOptions options;
  segments.reserve(graph_->edges.size());
  for (const Edge& e : graph_->edges) {
    const size_t p = static_cast<size_t>(e.producer), c = static_cast<size_t>(e.consumer);
    const float cx = drawing_.x[c], cy = drawing_.y[c] - options.node_height / 2;
    if (drawing_.stub[p]) {
      segments.push_back({cx - 0.25f, cy - 0.35f, cx, cy, true});
    } else {
      segments.push_back({drawing_.x[p], drawing_.y[p] + options.node_height / 2, cx, cy, false});
    }
  }
  return segments;
}

int32_t RankingSession::node_at(float x, float y, float slack) const {
  if (!drawn()) return -1;
  const DrawingOptions options;
  for (int32_t v = 0; v < graph_->node_count; ++v) {
    if (std::fabs(x - drawing_.x[static_cast<size_t>(v)]) <= options.node_width / 2 + slack &&
        std::fabs(y - drawing_.y[static_cast<size_t>(v)]) <= options.node_height / 2 + slack) {
      return v;
    }
  }
  return -1;
}

int32_t RankingSession::configurable_slot(int32_t node) const {
  const auto found = std::lower_bound(graph_->configurable_nodes.begin(), graph_->configurable_nodes.end(), node);
  return found != graph_->configurable_nodes.end() && *found == node ? static_cast<int32_t>(found - graph_->configurable_nodes.begin())
                                                                     : -1;
}

std::vector<std::pair<float, float>> RankingSession::cost_runtime_points() const {
  std::vector<std::pair<float, float>> points;
  if (!ranked_ || !metrics_.labelled || costs_.empty()) return points;
  const auto [low_cost, high_cost] = std::minmax_element(costs_.begin(), costs_.end());
  std::vector<double> log_runtime(costs_.size());
  for (size_t c = 0; c < costs_.size(); ++c) log_runtime[c] = std::log(static_cast<double>(graph_->config_runtime_ns[c]));
  const auto [low_runtime, high_runtime] = std::minmax_element(log_runtime.begin(), log_runtime.end());
  for (size_t c = 0; c < costs_.size(); ++c) {
    points.emplace_back((costs_[c] - *low_cost) / std::max(1e-9f, *high_cost - *low_cost),
                        static_cast<float>((log_runtime[c] - *low_runtime) / std::max(1e-12, *high_runtime - *low_runtime)));
  }
  return points;
}

double RankingSession::ranking_progress() const {
  if (ranked_) return 1.0;
  return distinct_configs_.empty() ? 0.0 : static_cast<double>(ranked_distinct_) / static_cast<double>(distinct_configs_.size());
}

void RankingSession::ranking_unit() {
  const auto start = Clock::now();
  if (!ranking_started_) {  // preparing the graph and the base activations
    ranking_started_ = true;
    ranking_start_ = start;
    metrics_.labelled = !graph_->runtimes_hidden;
    prepared_ = std::make_unique<PreparedGraph>(model_->prepare(*graph_));
    if (graph_->kind == GraphKind::Layout && !model_->couples_configs()) {
      inference_ = std::make_unique<LayoutInference>(*model_, *prepared_);
      std::vector<int32_t> all(static_cast<size_t>(graph_->config_count));
      std::iota(all.begin(), all.end(), 0);
      DistinctConfigs groups = group_identical_configs(*graph_, all);  // as CostModel::predict
      distinct_configs_ = std::move(groups.distinct);
      slot_of_config_ = std::move(groups.slot);
      distinct_costs_.assign(distinct_configs_.size(), 0.0f);
      ranking_compute_ms_ += ms_since(start);
    } else {
      costs_ = model_->predict(*prepared_);  // tile kernels are small: all at once
      ranking_compute_ms_ += ms_since(start);
      finish_ranking();
    }
    return;
  }
  const size_t end = std::min(distinct_configs_.size(), ranked_distinct_ + kRankingChunk);
  const std::vector<int32_t> chunk(distinct_configs_.begin() + static_cast<std::ptrdiff_t>(ranked_distinct_),
                                   distinct_configs_.begin() + static_cast<std::ptrdiff_t>(end));
  const std::vector<float> costs = inference_->predict(chunk, 1);
  std::copy(costs.begin(), costs.end(), distinct_costs_.begin() + static_cast<std::ptrdiff_t>(ranked_distinct_));
  ranked_distinct_ = end;
  ranking_compute_ms_ += ms_since(start);
  if (ranked_distinct_ == distinct_configs_.size()) {
    costs_.resize(static_cast<size_t>(graph_->config_count));
    for (size_t c = 0; c < costs_.size(); ++c) costs_[c] = distinct_costs_[static_cast<size_t>(slot_of_config_[c])];
    finish_ranking();
  }
}

void RankingSession::finish_ranking() {
  order_ = order_by_cost(costs_);
  ranked_ = true;
  ranking_ms_ = ms_since(ranking_start_);
  if (!metrics_.labelled || costs_.size() < 2) return;
  const std::vector<double> targets = config_ranking_targets(*graph_);
  const std::vector<int32_t> by_target = order_by_cost(targets);
  true_rank_.assign(targets.size(), 0);
  for (size_t r = 0; r < by_target.size(); ++r) true_rank_[static_cast<size_t>(by_target[r])] = static_cast<int32_t>(r);
  if (graph_->kind == GraphKind::Tile) {
    metrics_.tile_score = tile_score(targets, order_);
  } else {
    metrics_.kendall_tau = layout_kendall_tau(targets, order_);
  }
  metrics_.top5_slowdown = slowdown_at_k(targets, order_, 5);
  metrics_.measured_speedup = targets[0] / targets[static_cast<size_t>(order_.front())];
}

std::vector<char> RankingSession::neighbourhood(int32_t node, int hops) const {
  std::vector<char> inside(static_cast<size_t>(graph_->node_count), 0);
  if (node < 0 || node >= graph_->node_count) return inside;
  for (int32_t v : k_hop_neighbourhood(view_, {node}, hops)) inside[static_cast<size_t>(v)] = 1;
  return inside;
}

std::vector<int32_t> RankingSession::find_nodes(const std::string& text, size_t limit) const {
  std::vector<int32_t> found;
  if (text.empty()) return found;
  char* end = nullptr;
  const long id = std::strtol(text.c_str(), &end, 10);
  if (end != nullptr && *end == '\0') {
    if (id >= 0 && id < graph_->node_count) found.push_back(static_cast<int32_t>(id));
    return found;
  }
  // Exact instruction names first, then names containing the text, op_names starting with it
  // (a source namespace: "jit(train_step)/layer_3"), and opcodes containing it.
  const NodeNames& names = graph_->names;
  std::vector<bool> taken(static_cast<size_t>(graph_->node_count), false);
  auto take = [&](int32_t v) {
    if (taken[static_cast<size_t>(v)] || found.size() >= limit) return;
    taken[static_cast<size_t>(v)] = true;
    found.push_back(v);
  };
  if (!names.empty()) {
    for (int32_t v = 0; v < graph_->node_count; ++v) {
      if (names.instructions[static_cast<size_t>(v)] == text) take(v);
    }
  }
  for (int32_t v = 0; v < graph_->node_count && found.size() < limit; ++v) {
    const size_t i = static_cast<size_t>(v);
    const bool named = !names.empty() && (names.instructions[i].find(text) != std::string::npos || names.op_names[i].rfind(text, 0) == 0);
    if (named || opcode_name(graph_->node_opcodes[i]).find(text) != std::string::npos) take(v);
  }
  return found;
}

RankingSession::WhatIf RankingSession::what_if(const std::vector<int8_t>& values) const {
  check_invariant(explainable(), "RankingSession::what_if on a graph without incremental layout inference");
  WhatIf result;
  result.cost = inference_->predict_values(values)[0];
  for (float c : costs_) result.rank += c < result.cost;
  return result;
}

void RankingSession::forget_explanation() {
  explained_ = explained_compare_ = false;
  explained_config_ = explained_other_ = -1;
  contributions_ = NodeContributions();
  node_contribution_.clear();
}

void RankingSession::explain(int32_t config) {
  if (!explainable()) return;
  forget_explanation();
  explain_job_compare_ = false;
  explain_job_config_ = config;
  explain_job_other_ = -1;
  explain_job_ = std::make_unique<ContributionJob>(*inference_, layout_config_values(*graph_, config));
}

void RankingSession::compare(int32_t config, int32_t other) {
  if (!explainable()) return;
  forget_explanation();
  explain_job_compare_ = true;
  explain_job_config_ = config;
  explain_job_other_ = other;
  explain_job_ =
      std::make_unique<ContributionJob>(*inference_, layout_config_values(*graph_, config), layout_config_values(*graph_, other));
}

void RankingSession::explain_unit() {
  explain_job_->step(kExplainChunk);
  if (!explain_job_->done()) return;
  contributions_ = explain_job_->result();
  explain_job_.reset();
  node_contribution_.assign(static_cast<size_t>(graph_->node_count), 0.0f);
  for (size_t i = 0; i < contributions_.slots.size(); ++i) {
    const int32_t node = graph_->configurable_nodes[static_cast<size_t>(contributions_.slots[i])];
    node_contribution_[static_cast<size_t>(node)] = contributions_.contribution[i];
  }
  explained_ = true;
  explained_compare_ = explain_job_compare_;
  explained_config_ = explain_job_config_;
  explained_other_ = explain_job_other_;
}

std::string RankingSession::explanation_summary() const {
  if (!explained_) return "";
  char text[256];
  if (explained_compare_) {
    std::snprintf(text, sizeof text, "config %d -> %d: predicted %+.4f; %zu nodes differ (red: taking config %d's layout there costs more)",
                  explained_config_, explained_other_, contributions_.other_cost - contributions_.reference_cost,
                  contributions_.slots.size(), explained_other_);
  } else {
    std::snprintf(text, sizeof text,
                  "config %d: %zu nodes differ from the most common layout; red nodes add predicted cost, blue ones save it",
                  explained_config_, contributions_.slots.size());
  }
  return text;
}

bool RankingSession::search_found_better() const {
  return search_ && search_->done() && !order_.empty() && search_->best_cost() < costs_[static_cast<size_t>(order_.front())];
}

std::string RankingSession::search_summary() const {
  if (!search_ || !search_->done() || order_.empty()) return "";
  char text[256];
  std::snprintf(text, sizeof text, "%s: predicted %.4f vs best listed %.4f (%d nodes changed, %d rounds)",
                search_found_better() ? "found a config the model rates better than every listed one" : "no better config found",
                search_->best_cost(), costs_[static_cast<size_t>(order_.front())], search_->changed_nodes(), search_->rounds());
  return text;
}

SpeedupEstimate RankingSession::predicted_speedup() const {
  if (!ranked_ || order_.empty()) return SpeedupEstimate{false, 1, 1, 1, "not ranked yet"};
  return model_->calibration().estimate_speedup(costs_.front(), costs_[static_cast<size_t>(order_.front())], graph_->node_count);
}

std::vector<std::pair<int32_t, float>> RankingSession::strongest_contributions(size_t count) const {
  std::vector<size_t> index(contributions_.slots.size());
  std::iota(index.begin(), index.end(), 0);
  std::sort(index.begin(), index.end(),
            [&](size_t a, size_t b) { return std::fabs(contributions_.contribution[a]) > std::fabs(contributions_.contribution[b]); });
  std::vector<std::pair<int32_t, float>> strongest;
  for (size_t i = 0; i < std::min(count, index.size()); ++i) {
    strongest.emplace_back(graph_->configurable_nodes[static_cast<size_t>(contributions_.slots[index[i]])],
                           contributions_.contribution[index[i]]);
  }
  return strongest;
}

void RankingSession::start_search() {
  if (!explainable() || !ranked_ || order_.empty()) return;
  search_ = std::make_unique<GreedyLayoutSearch>(*inference_, *graph_, layout_config_values(*graph_, order_.front()));
}

nlohmann::json RankingSession::loading_state() const {
  const Progress now = progress();
  const std::string stage = now.stage.rfind("drawing: ", 0) == 0 ? now.stage.substr(9) : now.stage;
  return {{"file", file_}, {"nodes", graph_->node_count}, {"stage", stage}, {"progress", now.fraction}};
}

nlohmann::json RankingSession::node_state(int32_t node) const {
  if (node < 0 || node >= graph_->node_count) return nullptr;
  nlohmann::json state = {
      {"node", node}, {"opcode", opcode_name(graph_->node_opcodes[static_cast<size_t>(node)])}, {"features", kNodeFeatureCount}};
  const NodeNames& names = graph_->names;
  if (!names.empty()) {
    state["name"] = names.instructions[static_cast<size_t>(node)];
    state["computation"] = names.computation_of(node);
    state["op_name"] = names.op_names[static_cast<size_t>(node)];
  }
  return state;
}

nlohmann::json RankingSession::state() const {
  nlohmann::json state;
  state["file"] = file_;
  state["load_ms"] = load_ms_;
  state["kind"] = graph_kind_name(graph_->kind);
  state["nodes"] = graph_->node_count;
  state["edges"] = graph_->edges.size();
  state["configs"] = graph_->config_count;
  state["named"] = !graph_->names.empty();
  if (drawn()) {
    state["drawing"] = {{"done", !drawing_.cancelled},
                        {"stopped_early", drawing_.stopped_early},
                        {"ms", drawing_ms_},
                        {"layers", drawing_.layer_count},
                        {"width", drawing_.width},
                        {"height", drawing_.height},
                        {"stubs", std::count(drawing_.stub.begin(), drawing_.stub.end(), 1)}};
  }
  state["model"] = model_source_;
  const RuntimeCalibration& calibration = model_->calibration();
  if (calibration.fitted()) {
    state["calibration"] = {{"log_runtime_per_score", calibration.log_runtime_per_score},
                            {"r2", calibration.r2},
                            {"configs", calibration.configs},
                            {"graphs", calibration.graphs},
                            {"cost_range", calibration.cost_range},
                            {"residual_sd", calibration.residual_sd},
                            {"nodes", {calibration.nodes_min, calibration.nodes_max}}};
  }
  state["ranking"] = {{"done", ranked_}, {"ms", ranking_ms_}, {"compute_ms", ranking_compute_ms_}, {"progress", ranking_progress()}};
  if (ranked_) {
    if (!order_.empty()) {
      const SpeedupEstimate speedup = predicted_speedup();
      if (speedup.supported) {
        state["ranking"]["predicted_speedup"] = speedup.value;
        state["ranking"]["predicted_speedup_interval"] = {speedup.low, speedup.high};
      } else {
        state["ranking"]["predicted_speedup_note"] = speedup.reason;
      }
    }
    if (metrics_.labelled && !order_.empty()) state["ranking"]["measured_speedup"] = metrics_.measured_speedup;
    state["ranking"]["order"] = order_;
    state["ranking"]["costs"] = costs_;
    if (metrics_.labelled) {
      state["ranking"]["kendall_tau"] = metrics_.kendall_tau;
      state["ranking"]["tile_score"] = metrics_.tile_score;
      state["ranking"]["top5_slowdown"] = metrics_.top5_slowdown;
    }
  }
  if (drawn()) {
    state["hierarchy"] = {{"clusters", hierarchy_.clusters().size() - 1},
                          {"top_level", hierarchy_.cluster(0).items.size()},
                          {"open", hierarchy_.frames().size()},
                          {"in_view", hierarchy_.visible().size()},
                          {"edges", hierarchy_.edges().size()}};
  }
  if (explained_) {
    state["explained_nodes"] = contributions_.slots.size();
    state["explanation"] = explanation_summary();
  }
  if (search_) {
    state["search"] = {{"done", search_->done()}, {"start_cost", search_->start_cost()}, {"best_cost", search_->best_cost()}};
    if (search_->done()) state["search"]["summary"] = search_summary();
  }
  return state;
}

}  // namespace graphcost
