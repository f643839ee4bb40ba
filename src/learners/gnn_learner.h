// GnnLearner: the GNN cost model fitted to a program's measurements (learners/learner.h): an
// ensemble of `ensemble` models, each fine-tuned on every measured config by the trainer's loop
// (fit_model), starting from scratch, from the given model, or from its own previous fit. Their
// costs are averaged after standardising each (fewer measurements are noisier to learn from, and
// an ensemble's ranking varies less).
#pragma once

#include <memory>
#include <vector>

#include "learners/learner.h"

namespace graphcost {

class GnnLearner final : public Learner {
 public:
  // `given`: init model's starting point (required then; may be null otherwise).
  GnnLearner(const TpuGraph& graph, const CostModel* given, LearnerOptions options);
  LearnerKind kind() const override { return LearnerKind::Gnn; }
  void fit(const Observations& observed) override;
  bool fitted() const override { return !members_.empty(); }
  std::vector<float> predict(const std::vector<int32_t>& configs) const override;
  std::unique_ptr<Learner> fresh() const override { return std::make_unique<GnnLearner>(graph_, given_, options_); }
  bool fits_from_previous() const override { return options_.init == GnnInit::Previous; }
  void replay_fit(const Observations& observed) override { fit_members(observed); }
  // The first member: the model a caller saves or reads.
  const CostModel& model() const { return *members_.front(); }
  void save(const std::string& path, const std::vector<std::string>& inputs) const override;

 private:
  void fit_members(const Observations& observed);

  const TpuGraph& graph_;
  const CostModel* given_;
  LearnerOptions options_;
  TpuGraph labelled_;  // the target's graph with the measured runtimes (0 elsewhere): what the fit reads
  std::vector<std::unique_ptr<CostModel>> members_;
  std::vector<std::unique_ptr<PreparedGraph>> prepared_;  // each member's, for ranking (after fit, not replay_fit)
};

}  // namespace graphcost
