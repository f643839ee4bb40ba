// AutoLearner: the learner chosen by evidence, per program and at every fit. Each candidate
// (LearnerOptions::candidates: xgboost, then ridge, by default) is cross-validated on the measured
// configs (k folds, the same for all: fitted to the others, it ranks the fold's configs it has not
// seen, Kendall tau-b per fold). The first candidate is kept unless another beat it fold by fold by
// more than one standard error of the paired difference (the one-standard-error rule: leads within
// the folds' noise chose wrongly half the time on the real files at 30 measurements); the chosen
// one is fitted to every measurement. With fewer than 4 measurements: the first candidate.
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

  // The learner the last fit chose, and each candidate's mean fold tau (NaN: not cross-validated).
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

// Per fold of `observed` (seeded; fold f holds every folds-th config of a shuffled order), the
// Kendall tau-b of a fresh `learner` fitted to the other folds on the fold's configs (NaN for a
// fold of fewer than 2).
std::vector<double> cross_validated_fold_taus(const Learner& learner, const Observations& observed, int folds, uint64_t seed);

}  // namespace graphcost
