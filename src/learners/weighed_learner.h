// WeighedLearner: the GNN and ridge (learners/gnn_learner.h, ridge_learner.h) both fitted at every
// fit, their standardised costs added with weights. weighed: the GNN's share follows how each
// ranked the measurements of past rounds, predicted before they were made (its out-of-sample tau,
// averaged over the rounds): 0.5 + 2.5 x (GNN's - ridge's), clamped to [0, 1], 0.5 before any
// record. blend: 0.5 always.
#pragma once

#include <memory>

#include "learners/gnn_learner.h"
#include "learners/ridge_learner.h"

namespace graphcost {

class WeighedLearner final : public Learner {
 public:
  WeighedLearner(const TpuGraph& graph, const CostModel* given, const LearnerOptions& options);
  LearnerKind kind() const override { return kind_; }
  void fit(const Observations& observed) override;
  bool fitted() const override { return !gnn_costs_.empty(); }
  std::vector<float> predict(const std::vector<int32_t>& configs) const override;
  std::unique_ptr<Learner> fresh() const override;
  bool fits_from_previous() const override { return gnn_->fits_from_previous(); }
  void replay_fit(const Observations& observed) override { gnn_->replay_fit(observed); }
  std::map<std::string, std::vector<float>> member_costs() const override;
  void set_record(const std::vector<MemberRecord>& record) override;
  nlohmann::json describe() const override;
  void save(const std::string& path, const std::vector<std::string>& inputs) const override;
  static std::unique_ptr<WeighedLearner> from_json(const TpuGraph& graph, const nlohmann::json& json, const std::string& where);

  // The GNN's share of the costs (ridge has the rest).
  double gnn_weight() const;

 private:
  WeighedLearner(const TpuGraph& graph, LearnerKind kind);
  const TpuGraph& graph_;
  const CostModel* given_ = nullptr;
  LearnerOptions options_;
  LearnerKind kind_;
  std::unique_ptr<GnnLearner> gnn_;
  std::unique_ptr<RidgeLearner> ridge_;
  std::vector<float> gnn_costs_, ridge_costs_;  // of every candidate, from the last fit
  std::vector<double> gnn_round_taus_, ridge_round_taus_;
  double fixed_weight_ = -1;  // a weight read from a learner file
};

}  // namespace graphcost
