#include "learners/ridge_learner.h"

#include "common/internal_error.h"
#include "learners/learner_file.h"

namespace graphcost {

RidgeLearner::RidgeLearner(const TpuGraph& graph) : graph_(graph) {}

RidgeLearner::RidgeLearner(const TpuGraph& graph, RidgeRanker fitted) : graph_(graph), ridge_(std::move(fitted)) {}

void RidgeLearner::fit(const Observations& observed) {
  check_invariant(observed.configs.size() == observed.seconds.size() && observed.configs.size() >= 2, "RidgeLearner: 2 or more runtimes");
  RidgeRanker ridge(ConfigEncoding::PerNode);
  ridge.fit(graph_, observed.configs, observed.seconds);
  ridge_ = std::move(ridge);
}

std::vector<float> RidgeLearner::predict(const std::vector<int32_t>& configs) const {
  check_invariant(ridge_.has_value(), "RidgeLearner::predict before fit");
  return ridge_->predict(graph_, configs);
}

nlohmann::json RidgeLearner::describe() const {
  nlohmann::json json = Learner::describe();
  if (ridge_) json["penalty"] = ridge_->penalty();
  return json;
}

void RidgeLearner::save(const std::string& path, const std::vector<std::string>& inputs) const {
  check_invariant(ridge_.has_value(), "RidgeLearner::save before fit");
  nlohmann::json json = learner_file_header(LearnerKind::Ridge, graph_);
  json["ridge"] = ridge_->to_json();
  write_learner_file(path, json, inputs);
}

}  // namespace graphcost
