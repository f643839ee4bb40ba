// RankingSession: what the browser app knows about one graph, without a window or GL, so it is
// tested natively. It holds the graph and its view, the model, and its parts, each with a header
// that says what it owns:
//   SessionDrawing      (app/session_drawing.h)      the graph's drawing and its nested boxes
//   SessionRanking      (app/session_ranking.h)      the ranking of the configs, metrics, what-if
//   SessionExplanation  (app/session_explanation.h)  per-node explanations of a config
//   SessionSearch       (app/session_search.h)       a model-guided search for a better config
// and the shipped models come from a ModelShelf (app/model_shelf.h).
//
// All slow work runs through one interface: step(budget_ms) does units of the current work until
// the budget is spent (a drawing unit, 4 configs of the ranking, 2 configs of an explanation or of
// a search round), progress() says which work runs and how far it is, done() says nothing is
// pending. The order is fixed: drawing, then ranking; an explanation or a search starts when asked
// and runs after them. The app calls step() between frames; tests call it until done().
//
// The numbers are the CLI's: costs as `graphcost predict` (identical configs predicted once), the
// drawing as `graphcost draw`, the metrics as the evaluator's (metrics/ranking_metrics.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"
#include "model/cost_model.h"
#include "model/graph_view.h"
#include "sessions/model_shelf.h"
#include "sessions/session_drawing.h"
#include "sessions/session_explanation.h"
#include "sessions/session_ranking.h"
#include "sessions/session_search.h"

namespace graphcost {

class RankingSession {
 public:
  // Reads `path` (InputError as load_tpu_graph) and starts a session with the shelf's model of
  // its kind; `file` names it in state() and the app (the path when empty). What the app opens is
  // bounded (the page works on one thread and must stay responsive): HLO text up to
  // kMaxModuleTextBytes (HLO text or proto), graphs up to kMaxNodes nodes; larger ones are refused, saying so.
  static constexpr uint64_t kMaxModuleTextBytes = 16u << 20;
  static constexpr int32_t kMaxNodes = 250000;
  static std::unique_ptr<RankingSession> open(const std::string& path, const std::string& file, ModelShelf& models);
  // `graph` as loaded (InputError is the loader's); `model` must be of the graph's kind. The
  // drawing starts at once; `source` names the model in state().
  RankingSession(std::unique_ptr<TpuGraph> graph, std::shared_ptr<CostModel> model, std::string model_source);
  ~RankingSession();
  RankingSession(const RankingSession&) = delete;
  RankingSession& operator=(const RankingSession&) = delete;

  // The work: at least one unit, then units until `budget_ms` has passed or nothing is pending.
  void step(double budget_ms);
  bool done() const;
  struct Progress {
    std::string stage;  // "drawing: <stage>", "ranking", "explaining", "searching" or "done"
    double fraction;    // of that stage, 0..1
  };
  Progress progress() const;

  const TpuGraph& graph() const { return *graph_; }
  const GraphView& view() const { return view_; }  // the whole graph (view index = node id)
  const CostModel& model() const { return *model_; }
  const std::string& model_source() const { return model_source_; }
  const std::string& file() const { return file_; }
  double load_ms() const { return load_ms_; }  // reading the file and the model (open())

  // The drawing (first), then the ranking (after the drawing).
  const SessionDrawing& drawing() const { return drawing_; }
  SessionDrawing& drawing() { return drawing_; }  // finish_early, and the boxes opened and closed
  const SessionRanking& ranking() const { return ranking_; }

  // Layout configs' explanations, what-if and search: a layout graph whose model ranks each config
  // alone (not cross-config attention), from the ranking's start on (the search starts from the
  // best listed config, so it waits for the ranking's end).
  // Layout inference is running and something is configurable (with nothing configurable every
  // config is one program: nothing to explain or search).
  bool explainable() const { return ranking_.inference() != nullptr && graph_->configurable_count() > 0; }
  void explain(int32_t config);                 // occlusion against the base config
  void compare(int32_t config, int32_t other);  // the gap between two configs
  const SessionExplanation& explanation() const { return explanation_; }
  void start_search();  // greedy, from the best listed config
  void stop_search() { search_.stop(); }
  const SessionSearch& search() const { return search_; }

  // Graph queries.
  int32_t configurable_slot(int32_t node) const;                  // its index in configurable_nodes; -1 if not configurable
  std::vector<char> neighbourhood(int32_t node, int hops) const;  // per node: within `hops` of `node`
  // Nodes whose id is `text`; else (at most `limit`) nodes whose instruction name is `text`, then
  // nodes whose name contains it, whose op_name starts with it, or whose opcode name contains it.
  std::vector<int32_t> find_nodes(const std::string& text, size_t limit) const;

  // The fields the app's page API reports (docs/browser-app.md): the session's, a drawing in
  // progress ({file, nodes, stage, progress}), and a node ({node, opcode, features}).
  nlohmann::json state() const;
  nlohmann::json loading_state() const;
  nlohmann::json node_state(int32_t node) const;

 private:
  std::unique_ptr<TpuGraph> graph_;
  std::shared_ptr<CostModel> model_;
  std::string model_source_;
  std::string file_;
  double load_ms_ = 0;
  GraphView view_;
  // Declared in the order they are built; destroyed the other way round, so the explanation and
  // the search (jobs on the ranking's inference) go before the ranking.
  SessionDrawing drawing_;
  SessionRanking ranking_;
  SessionExplanation explanation_;
  SessionSearch search_;
};

}  // namespace graphcost
