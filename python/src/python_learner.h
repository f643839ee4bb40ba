// A learner written in Python (as TVM's PyCostModel): any object with scikit-learn's
// fit(X, y) and predict(X), plugged into the tuning loop (graphcost.Tuner(learner=obj)). X holds
// the configs' varying values, the numbers XGBoost learns from (learners/xgboost_learner.h: a
// layout config's configurable nodes' 18 values, a tile config's 24 features, a space's
// parameters), float32, one row per config; y the measured runtimes' logs (seconds). Its costs are
// predict's values (lower = predicted faster: log runtimes). The GIL is taken for each call.
#pragma once

#include <memory>
#include <vector>

#include <pybind11/pybind11.h>

#include "learners/learner.h"
#include "learners/xgboost_learner.h"

namespace graphcost::python {

class PythonLearner final : public Learner {
 public:
  PythonLearner(const TpuGraph& graph, pybind11::object estimator);
  ~PythonLearner() override;
  LearnerKind kind() const override { return LearnerKind::Python; }
  void fit(const Observations& observed) override;
  bool fitted() const override { return fitted_; }
  std::vector<float> predict(const std::vector<int32_t>& configs) const override;
  bool costs_are_log_runtimes() const override { return true; }
  // A deep copy of the estimator, unfitted as far as graphcost knows (cross-validation, bagging).
  std::unique_ptr<Learner> fresh() const override;
  nlohmann::json describe() const override;
  // InputError: a Python learner is saved by Python (pickle the estimator).
  void save(const std::string& path, const std::vector<std::string>& inputs) const override;

 private:
  PythonLearner(const TpuGraph& graph, pybind11::object estimator, std::shared_ptr<const std::vector<XgboostLearner::Column>> columns);
  pybind11::object features(const std::vector<int32_t>& configs) const;  // with the GIL held

  const TpuGraph& graph_;
  pybind11::object* estimator_;  // owned; released with the GIL held
  std::shared_ptr<const std::vector<XgboostLearner::Column>> columns_;
  bool fitted_ = false;
};

}  // namespace graphcost::python
