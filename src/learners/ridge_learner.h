// RidgeLearner: ridge regression on a program's measured configs (train/ridge_ranker.h: per node,
// one-hot values and whole rows, for layout; the 24 config features for tile), the penalty chosen
// by leave-one-out error at each fit (learners/learner.h).
#pragma once

#include <memory>
#include <optional>

#include "learners/learner.h"
#include "train/ridge_ranker.h"

namespace graphcost {

class RidgeLearner final : public Learner {
 public:
  explicit RidgeLearner(const TpuGraph& graph);
  // A fitted ridge read from a learner file (learners/learner_file.h).
  RidgeLearner(const TpuGraph& graph, RidgeRanker fitted);
  LearnerKind kind() const override { return LearnerKind::Ridge; }
  void fit(const Observations& observed) override;
  bool fitted() const override { return ridge_.has_value(); }
  std::vector<float> predict(const std::vector<int32_t>& configs) const override;
  std::unique_ptr<Learner> fresh() const override { return std::make_unique<RidgeLearner>(graph_); }
  nlohmann::json describe() const override;
  void save(const std::string& path, const std::vector<std::string>& inputs) const override;

 private:
  const TpuGraph& graph_;
  std::optional<RidgeRanker> ridge_;
};

}  // namespace graphcost
