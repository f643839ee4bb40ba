#include "learners/learner.h"

#include <cmath>

#include "common/input_error.h"
#include "learners/auto_learner.h"
#include "learners/gnn_learner.h"
#include "learners/ridge_learner.h"
#include "learners/weighed_learner.h"
#include "learners/xgboost_learner.h"

namespace graphcost {

const NameTable<LearnerKind>& learner_names() {
  static const NameTable<LearnerKind> names = {
      {"gnn", LearnerKind::Gnn},         {"ridge", LearnerKind::Ridge}, {"xgboost", LearnerKind::Xgboost}, {"blend", LearnerKind::Blend},
      {"weighed", LearnerKind::Weighed}, {"auto", LearnerKind::Auto},   {"python", LearnerKind::Python}};
  return names;
}

const NameTable<GnnInit>& gnn_init_names() {
  static const NameTable<GnnInit> names = {{"scratch", GnnInit::Scratch}, {"model", GnnInit::Model}, {"previous", GnnInit::Previous}};
  return names;
}

nlohmann::json LearnerOptions::to_json() const {
  std::vector<std::string> candidate_names;
  for (const LearnerKind candidate : candidates) candidate_names.push_back(name_of(learner_names(), candidate));
  return {{"learner", name_of(learner_names(), kind)},
          {"seed", seed},
          {"init", name_of(gnn_init_names(), init)},
          {"epochs", epochs},
          {"steps_per_epoch", steps_per_epoch},
          {"configs_per_step", configs_per_step},
          {"learning_rate", learning_rate},
          {"loss", name_of(ranking_loss_names(), loss)},
          {"scratch_model", scratch_model.to_json()},
          {"ensemble", ensemble},
          {"trees", {{"rounds", trees.rounds}, {"max_depth", trees.max_depth}, {"learning_rate", trees.learning_rate}}},
          {"candidates", candidate_names},
          {"folds", folds}};
}

void LearnerOptions::check(const std::string& where) const {
  const auto at_least = [&](const char* name, double value, double low) {
    if (!(value >= low)) throw InputError(where, name, "at least " + std::to_string(static_cast<long long>(low)), std::to_string(value));
  };
  at_least("epochs", epochs, 1);
  at_least("steps_per_epoch", steps_per_epoch, 1);
  at_least("configs_per_step", configs_per_step, 2);
  at_least("ensemble", ensemble, 1);
  at_least("threads", threads, 1);
  at_least("trees.rounds", trees.rounds, 1);
  at_least("trees.max_depth", trees.max_depth, 1);
  at_least("folds", folds, 2);
  if (!(std::isfinite(learning_rate) && learning_rate > 0))
    throw InputError(where, "learning_rate", "a positive number", std::to_string(learning_rate));
  if (!(std::isfinite(trees.learning_rate) && trees.learning_rate > 0 && trees.learning_rate <= 1)) {
    throw InputError(where, "trees.learning_rate", "a number in (0, 1]", std::to_string(trees.learning_rate));
  }
  if (scratch_model.hidden < 1 || scratch_model.layers < 1 || scratch_model.hops < -1) {
    throw InputError(where, "scratch_model", "hidden >= 1, layers >= 1, hops >= -1",
                     "hidden " + std::to_string(scratch_model.hidden) + ", layers " + std::to_string(scratch_model.layers) + ", hops " +
                         std::to_string(scratch_model.hops));
  }
}

nlohmann::json Learner::describe() const { return {{"learner", name_of(learner_names(), kind())}}; }

std::unique_ptr<Learner> make_learner(const TpuGraph& graph, const CostModel* given, const LearnerOptions& options) {
  options.check(graph.source);
  switch (options.kind) {
    case LearnerKind::Gnn:
      return std::make_unique<GnnLearner>(graph, given, options);
    case LearnerKind::Ridge:
      return std::make_unique<RidgeLearner>(graph);
    case LearnerKind::Xgboost:
      return std::make_unique<XgboostLearner>(graph, options.trees);
    case LearnerKind::Blend:
    case LearnerKind::Weighed:
      return std::make_unique<WeighedLearner>(graph, given, options);
    case LearnerKind::Auto:
      return std::make_unique<AutoLearner>(graph, options);
    case LearnerKind::Python:
      throw InputError(graph.source, "learner",
                       "gnn, ridge, xgboost, blend, weighed or auto (a python learner is a Python object: graphcost.Tuner(learner=...))",
                       "python");
  }
  throw InternalError("make_learner: a learner kind without a learner");
}

}  // namespace graphcost
