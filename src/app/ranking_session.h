// RankingSession: what the browser app knows about one graph, without a window or GL, so it is
// tested natively. It holds the graph and its view, the model, the graph's drawing, the ranking of
// its configs with metrics against measured runtimes, per-node explanations, what-if costs and a
// model-guided search.
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

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"
#include "drawing/camera.h"
#include "drawing/graph_hierarchy.h"
#include "drawing/layered_drawing.h"
#include "model/config_explainer.h"
#include "model/cost_model.h"
#include "model/graph_view.h"
#include "model/layout_inference.h"

namespace graphcost {

// The groups each node belongs to, outermost first, for the app's nested boxes (GraphHierarchy):
// for an imported HLO module its computation, then the namespaces of its op_name (the last part,
// the op itself, left out; an instruction outside any namespace, like a layer's weights, takes a
// consumer's in its computation, else a producer's); for a dataset file its node_splits section when there are three or
// more; else none (the hierarchy then splits the graph into parts of consecutive layers).
std::vector<std::vector<std::string>> hierarchy_paths(const TpuGraph& graph);

// The ranking against the measured runtimes (labelled files only).
struct RankingMetrics {
  bool labelled = false;
  double kendall_tau = 0;       // layout
  double tile_score = 0;        // tile
  double top5_slowdown = 0;     // best of the top 5 over the true best
  double measured_speedup = 0;  // config 0's runtime over the model's pick's
};

// An edge as drawn: producer's bottom to consumer's top, or a short stub into the consumer when
// the producer is a detached high fan-out node (LayeredDrawing::stub).
struct EdgeSegment {
  float x0, y0, x1, y1;
  bool stub;
};

// Which shipped model ranks a graph: tile_xla.npz for tile kernels; for layout graphs
// layout_nlp.npz when the file is an NLP program (its collection in the dataset tree is
// layout:nlp:*, or its name says "nlp" as the dataset's folders and the app's demos do), else
// layout_xla.npz.
enum class ShippedModel { Tile, LayoutXla, LayoutNlp };
ShippedModel shipped_model_for(const TpuGraph& graph, const std::string& file);

// The shipped models (<dir>/tile_xla.npz, layout_xla.npz, layout_nlp.npz), each loaded on first
// use (InputError as CostModel::load).
class ModelShelf {
 public:
  explicit ModelShelf(std::string dir) : dir_(std::move(dir)) {}
  std::string path_for(ShippedModel which) const;
  std::shared_ptr<CostModel> model_for(ShippedModel which);

 private:
  std::string dir_;
  std::shared_ptr<CostModel> loaded_[3];
};

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

  // Drawing. Until drawn() only the job's stage and fraction are known (progress()).
  bool drawn() const { return drawing_job_ == nullptr; }
  void finish_drawing_early();  // the drawing so far, now (LayeredDrawingJob::finish_early)
  const LayeredDrawing& drawing() const { return drawing_; }
  double drawing_ms() const { return drawing_ms_; }
  const std::vector<int32_t>& section_of() const { return section_of_; }  // node -> node_splits section
  // The nested boxes (built with the drawing: its layers order the parts); open and close them here.
  const GraphHierarchy& hierarchy() const { return hierarchy_; }
  GraphHierarchy& hierarchy() { return hierarchy_; }
  // What a box holds, for its label: its most frequent opcodes that do work (not parameters,
  // constants, tuples, bitcasts), e.g. "12 convolution, 3 dot" (cached).
  const std::string& cluster_contents(int32_t cluster) const;
  DrawingBox section_box(size_t section) const;  // of a node_splits section's nodes
  std::vector<EdgeSegment> edge_segments() const;
  // The node whose box (DrawingOptions' size, grown by `slack`) holds drawing point (x, y); -1 if none.
  int32_t node_at(float x, float y, float slack) const;

  // Ranking (after the drawing).
  bool ranked() const { return ranked_; }
  double ranking_progress() const;
  const std::vector<float>& costs() const { return costs_; }            // per config
  const std::vector<int32_t>& order() const { return order_; }          // predicted fastest first, stable
  const std::vector<int32_t>& true_rank() const { return true_rank_; }  // per config, labelled files
  const RankingMetrics& metrics() const { return metrics_; }
  double ranking_ms() const { return ranking_ms_; }                  // wall time from its start to its end
  double ranking_compute_ms() const { return ranking_compute_ms_; }  // of which in the model

  // Labelled files: per config (predicted cost, log runtime), each scaled to [0, 1] over the configs.
  std::vector<std::pair<float, float>> cost_runtime_points() const;

  // Graph queries.
  int32_t configurable_slot(int32_t node) const;                  // its index in configurable_nodes; -1 if not configurable
  std::vector<char> neighbourhood(int32_t node, int hops) const;  // per node: within `hops` of `node`
  // Nodes whose id is `text`; else (at most `limit`) nodes whose instruction name is `text`, then
  // nodes whose name contains it, whose op_name starts with it, or whose opcode name contains it.
  std::vector<int32_t> find_nodes(const std::string& text, size_t limit) const;

  // Layout configs' explanations, what-if and search: a layout graph whose model ranks each config
  // alone (not cross-config attention), from the ranking's start on (the search starts from the
  // best listed config, so it waits for the ranking's end).
  // Layout inference is running and something is configurable (with nothing configurable every
  // config is one program: nothing to explain or search).
  bool explainable() const { return inference_ != nullptr && graph_->configurable_count() > 0; }
  struct WhatIf {
    float cost = 0;
    int rank = 0;  // listed configs predicted cheaper
  };
  WhatIf what_if(const std::vector<int8_t>& values) const;  // configurable x 18 values; rank among those ranked so far
  // Starting one forgets the previous explanation: explained() is false until the new one ends.
  void explain(int32_t config);                 // occlusion against the base config
  void compare(int32_t config, int32_t other);  // the gap between two configs
  bool explaining() const { return explain_job_ != nullptr; }
  bool explained() const { return explained_; }
  bool explained_compare() const { return explained_compare_; }
  const NodeContributions& contributions() const { return contributions_; }
  const std::vector<float>& node_contribution() const { return node_contribution_; }  // per node, 0 unexplained
  // The `count` strongest contributions: (node, contribution), largest magnitude first.
  std::vector<std::pair<int32_t, float>> strongest_contributions(size_t count) const;
  void start_search();  // greedy, from the best listed config
  void stop_search() { search_.reset(); }
  const GreedyLayoutSearch* search() const { return search_.get(); }
  // One sentence on the finished explanation, naming the configs it was made for ("" until one ends).
  std::string explanation_summary() const;
  // A finished search: did it beat every listed config, and one sentence on it ("" while it runs).
  bool search_found_better() const;
  std::string search_summary() const;
  // The model's pick over config 0, from the model's calibration (unsupported, with why, where it
  // cannot give one: RuntimeCalibration::estimate_speedup).
  SpeedupEstimate predicted_speedup() const;

  // The fields the app's page API reports (docs/browser-app.md): the session's, a drawing in
  // progress ({file, nodes, stage, progress}), and a node ({node, opcode, features}).
  nlohmann::json state() const;
  nlohmann::json loading_state() const;
  nlohmann::json node_state(int32_t node) const;

 private:
  void drawing_unit();
  void finish_drawing();
  void ranking_unit();
  void finish_ranking();
  void explain_unit();
  void forget_explanation();

  std::unique_ptr<TpuGraph> graph_;
  std::shared_ptr<CostModel> model_;
  std::string model_source_;
  std::string file_;
  double load_ms_ = 0;
  GraphView view_;

  std::vector<std::pair<int32_t, int32_t>> drawing_edges_;  // (producer, consumer), the hierarchy's
  std::unique_ptr<LayeredDrawingJob> drawing_job_;
  LayeredDrawing drawing_;
  double drawing_ms_ = 0;
  std::vector<int32_t> section_of_;
  GraphHierarchy hierarchy_;
  mutable std::vector<std::string> cluster_contents_;  // per cluster, filled on first use
  mutable std::vector<char> cluster_contents_known_;

  std::unique_ptr<PreparedGraph> prepared_;
  std::unique_ptr<LayoutInference> inference_;
  bool ranking_started_ = false, ranked_ = false;
  std::vector<int32_t> distinct_configs_, slot_of_config_;
  std::vector<float> distinct_costs_;
  size_t ranked_distinct_ = 0;
  std::vector<float> costs_;
  std::vector<int32_t> order_, true_rank_;
  RankingMetrics metrics_;
  std::chrono::steady_clock::time_point ranking_start_;
  double ranking_ms_ = 0, ranking_compute_ms_ = 0;

  std::unique_ptr<ContributionJob> explain_job_;
  bool explain_job_compare_ = false, explained_ = false, explained_compare_ = false;
  int32_t explain_job_config_ = -1, explain_job_other_ = -1, explained_config_ = -1, explained_other_ = -1;
  NodeContributions contributions_;
  std::vector<float> node_contribution_;
  std::unique_ptr<GreedyLayoutSearch> search_;
};

}  // namespace graphcost
