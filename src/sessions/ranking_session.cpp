#include "sessions/ranking_session.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/memory_limit.h"
#include "data/node_features.h"
#include "data/opcodes.h"
#include "hlo/graph_file.h"
#include "hlo/module_file.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

// The graph, once its invariants are checked: the parts are built from it.
const TpuGraph& checked_graph(const std::unique_ptr<TpuGraph>& graph, const std::shared_ptr<CostModel>& model) {
  check_invariant(graph != nullptr && model != nullptr, "RankingSession needs a graph and a model");
  check_invariant(model->config().kind == graph->kind, "RankingSession: the model is not of the graph's kind");
  return *graph;
}

}  // namespace

RankingSession::RankingSession(std::unique_ptr<TpuGraph> graph, std::shared_ptr<CostModel> model, std::string model_source)
    : graph_(std::move(graph)),
      model_(std::move(model)),
      model_source_(std::move(model_source)),
      drawing_(checked_graph(graph_, model_)),
      ranking_(*graph_, *model_),
      explanation_(*graph_) {
  view_ = make_graph_view(*graph_, -1);
}

RankingSession::~RankingSession() = default;

std::unique_ptr<RankingSession> RankingSession::open(const std::string& path, const std::string& file, ModelShelf& models) {
  const auto start = Clock::now();
  if (!is_npz_file(path)) {
    std::error_code error;
    const uintmax_t bytes = std::filesystem::file_size(path, error);
    if (!error && bytes > kMaxModuleTextBytes) {
      throw InputError(path, "size",
                       "a module file of at most " + format_byte_size(kMaxModuleTextBytes) +
                           " in the app (it works on the page's one thread; `graphcost import` takes any size)",
                       format_byte_size(bytes));
    }
  }
  auto graph = std::make_unique<TpuGraph>(load_graph_file(path).graph);  // .npz, or HLO text imported here
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

bool RankingSession::done() const { return drawing_.done() && ranking_.done() && !explanation_.running() && !search_.running(); }

void RankingSession::step(double budget_ms) {
  const auto start = Clock::now();
  do {
    if (!drawing_.done()) {
      drawing_.step();
    } else if (!ranking_.done()) {
      ranking_.step();
    } else if (explanation_.running()) {
      explanation_.step();
    } else if (search_.running()) {
      search_.step();
    } else {
      return;
    }
  } while (ms_since(start) < budget_ms);
}

RankingSession::Progress RankingSession::progress() const {
  if (!drawing_.done()) return {std::string("drawing: ") + drawing_.stage(), drawing_.fraction()};
  if (!ranking_.done()) return {"ranking", ranking_.progress()};
  if (explanation_.running()) return {"explaining", explanation_.progress()};
  if (search_.running()) return {"searching", search_.current()->round_progress()};
  return {"done", 1.0};
}

void RankingSession::explain(int32_t config) {
  if (!explainable()) return;
  explanation_.explain(*ranking_.inference(), config);
}

void RankingSession::compare(int32_t config, int32_t other) {
  if (!explainable()) return;
  explanation_.compare(*ranking_.inference(), config, other);
}

void RankingSession::start_search() {
  if (!explainable() || !ranking_.done() || ranking_.order().empty()) return;
  const int32_t best = ranking_.order().front();
  search_.start(*ranking_.inference(), *graph_, best, ranking_.costs()[static_cast<size_t>(best)]);
}

int32_t RankingSession::configurable_slot(int32_t node) const {
  const auto found = std::lower_bound(graph_->configurable_nodes.begin(), graph_->configurable_nodes.end(), node);
  return found != graph_->configurable_nodes.end() && *found == node ? static_cast<int32_t>(found - graph_->configurable_nodes.begin())
                                                                     : -1;
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
  if (drawing_.done()) {
    const LayeredDrawing& drawing = drawing_.layered();
    state["drawing"] = {{"done", !drawing.cancelled},
                        {"stopped_early", drawing.stopped_early},
                        {"ms", drawing_.ms()},
                        {"layers", drawing.layer_count},
                        {"width", drawing.width},
                        {"height", drawing.height},
                        {"stubs", std::count(drawing.stub.begin(), drawing.stub.end(), 1)}};
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
  state["ranking"] = {
      {"done", ranking_.done()}, {"ms", ranking_.ms()}, {"compute_ms", ranking_.compute_ms()}, {"progress", ranking_.progress()}};
  if (ranking_.done()) {
    const std::vector<int32_t>& order = ranking_.order();
    const RankingMetrics& metrics = ranking_.metrics();
    if (!order.empty()) {
      const SpeedupEstimate speedup = ranking_.predicted_speedup();
      if (speedup.supported) {
        state["ranking"]["predicted_speedup"] = speedup.value;
        state["ranking"]["predicted_speedup_interval"] = {speedup.low, speedup.high};
      } else {
        state["ranking"]["predicted_speedup_note"] = speedup.reason;
      }
    }
    if (metrics.labelled && !order.empty()) state["ranking"]["measured_speedup"] = metrics.measured_speedup;
    state["ranking"]["order"] = order;
    state["ranking"]["costs"] = ranking_.costs();
    if (metrics.labelled) {
      state["ranking"]["kendall_tau"] = metrics.kendall_tau;
      state["ranking"]["tile_score"] = metrics.tile_score;
      state["ranking"]["top5_slowdown"] = metrics.top5_slowdown;
    }
  }
  if (drawing_.done()) {
    const GraphHierarchy& hierarchy = drawing_.hierarchy();
    state["hierarchy"] = {{"clusters", hierarchy.clusters().size() - 1},
                          {"top_level", hierarchy.cluster(0).items.size()},
                          {"open", hierarchy.frames().size()},
                          {"in_view", hierarchy.visible().size()},
                          {"edges", hierarchy.edges().size()}};
  }
  if (explanation_.done()) {
    state["explained_nodes"] = explanation_.contributions().slots.size();
    state["explanation"] = explanation_.summary();
  }
  if (const GreedyLayoutSearch* search = search_.current()) {
    state["search"] = {{"done", search->done()}, {"start_cost", search->start_cost()}, {"best_cost", search->best_cost()}};
    if (search->done()) state["search"]["summary"] = search_.summary();
  }
  return state;
}

}  // namespace graphcost
