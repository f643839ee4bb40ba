// SessionExplanation: why a RankingSession's model ranks a layout config where it does
// (app/ranking_session.h; model/config_explainer.h). It owns the explanation being computed (a
// ContributionJob: occlusion against the base config, or the gap between two configs; 2 configs a
// unit) and the last finished one: each configurable node's contribution, per node of the graph
// for the colours, the strongest ones, and one sentence on it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "data/tpu_graph.h"
#include "model/config_explainer.h"
#include "model/layout_inference.h"

namespace graphcost {

class SessionExplanation {
 public:
  // `graph` must outlive this.
  explicit SessionExplanation(const TpuGraph& graph) : graph_(graph) {}
  ~SessionExplanation();
  SessionExplanation(const SessionExplanation&) = delete;
  SessionExplanation& operator=(const SessionExplanation&) = delete;

  // Starting one forgets the previous explanation: done() is false until the new one ends.
  // `inference` (the ranking's) must outlive the job.
  void explain(const LayoutInference& inference, int32_t config);                 // occlusion against the base config
  void compare(const LayoutInference& inference, int32_t config, int32_t other);  // the gap between two configs
  void step();                                                                    // one unit of the running job
  bool running() const { return job_ != nullptr; }
  double progress() const;  // of the running job

  bool done() const { return explained_; }  // a finished explanation is shown
  bool compared() const { return explained_compare_; }
  const NodeContributions& contributions() const { return contributions_; }
  const std::vector<float>& node_contribution() const { return node_contribution_; }  // per node, 0 unexplained
  // The `count` strongest contributions: (node, contribution), largest magnitude first.
  std::vector<std::pair<int32_t, float>> strongest(size_t count) const;
  // One sentence on the finished explanation, naming the configs it was made for ("" until one ends).
  std::string summary() const;

 private:
  void forget();

  const TpuGraph& graph_;
  std::unique_ptr<ContributionJob> job_;
  bool job_compare_ = false, explained_ = false, explained_compare_ = false;
  int32_t job_config_ = -1, job_other_ = -1, explained_config_ = -1, explained_other_ = -1;
  NodeContributions contributions_;
  std::vector<float> node_contribution_;
};

}  // namespace graphcost
