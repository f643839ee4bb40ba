// AutoLearner: the learner chosen by evidence, per program and at every fit: each candidate
// (LearnerOptions::candidates: xgboost and ridge by default) is cross-validated on the measured
// configs (k folds: fitted to the others, it ranks the fold's configs it has not seen; Kendall
// tau-b per fold, averaged weighing each fold by its pairs), and the one that ranked best is fitted
// to every measurement and ranks the candidates. Ties go to the first candidate. With fewer than 4
// measurements there is nothing to cross-validate: the first candidate.
#pragma once

#include <memory>
#include <vector>

#include "learners/learner.h"

namespace graphcost {

class AutoLearner final : public Learner {
 public:
  AutoLearner(const TpuGraph& graph, const LearnerOptions& options);
  LearnerKind kind() const override { return LearnerKind::Auto; }
  void fit(const Observations& observed) override;
  bool fitted() const override { return chosen_ != nullptr && chosen_->fitted(); }
  std::vector<float> predict(const std::vector<int32_t>& configs) const override;
  std::unique_ptr<Learner> fresh() const override { return std::make_unique<AutoLearner>(graph_, options_); }
  nlohmann::json describe() const override;
  // Writes the learner it chose.
  void save(const std::string& path, const std::vector<std::string>& inputs) const override;

  // The learner the last fit chose, and each candidate's cross-validated tau (NaN: not measured).
  LearnerKind chosen() const { return chosen_kind_; }
  const std::vector<double>& cross_validated_taus() const { return taus_; }

 private:
  const TpuGraph& graph_;
  LearnerOptions options_;
  std::vector<std::unique_ptr<Learner>> candidates_;  // unfitted, one per kind: fresh() copies are fitted
  std::unique_ptr<Learner> chosen_;
  LearnerKind chosen_kind_;
  std::vector<double> taus_;
};

// The cross-validated Kendall tau-b of `learner`'s kind on `observed` with `folds` folds (seeded):
// per fold, a fresh learner fitted to the rest ranks the fold; the folds' taus averaged, each
// weighed by its pairs. NaN when no fold has 2 configs.
double cross_validated_tau(const Learner& learner, const Observations& observed, int folds, uint64_t seed);

}  // namespace graphcost
