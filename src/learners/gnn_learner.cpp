#include "learners/gnn_learner.h"

#include <algorithm>
#include <cmath>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "learners/learner_support.h"
#include "model/feature_encoder.h"

namespace graphcost {

GnnLearner::GnnLearner(const TpuGraph& graph, const CostModel* given, LearnerOptions options)
    : graph_(graph), given_(given), options_(std::move(options)), labelled_(unlabelled_copy(graph)) {
  if (options_.init == GnnInit::Model && given_ == nullptr) {
    throw InputError(graph.source, "model", "a model for the GNN to start from (init model)", "none");
  }
}

void GnnLearner::fit_members(const Observations& observed) {
  check_invariant(observed.configs.size() == observed.seconds.size(), "GnnLearner: a runtime per config");
  std::fill(labelled_.config_runtime_ns.begin(), labelled_.config_runtime_ns.end(), 0);
  for (size_t i = 0; i < observed.configs.size(); ++i) {
    labelled_.config_runtime_ns[static_cast<size_t>(observed.configs[i])] = runtime_ns(observed.seconds[i]);
  }
  std::vector<std::unique_ptr<CostModel>> previous = std::move(members_);
  members_.clear();
  prepared_.clear();
  for (int member = 0; member < options_.ensemble; ++member) {
    std::unique_ptr<CostModel> model;
    if (options_.init == GnnInit::Model) {
      model = std::make_unique<CostModel>(given_->clone());
    } else if (options_.init == GnnInit::Previous && static_cast<size_t>(member) < previous.size()) {
      model = std::move(previous[static_cast<size_t>(member)]);
    } else {
      ModelConfig config = options_.scratch_model;
      config.kind = graph_.kind;
      config.collection = "tune";
      config.seed = options_.seed + static_cast<uint64_t>(member);
      model = std::make_unique<CostModel>(config, fit_feature_statistics({&graph_}));
    }
    TrainOptions train;
    train.epochs = options_.epochs;
    train.steps_per_epoch = options_.steps_per_epoch;
    train.configs_per_step = options_.configs_per_step;
    train.graphs_per_step = 1;
    train.learning_rate = options_.learning_rate;
    train.loss = options_.loss;
    train.model = model->config();
    train.model.seed = options_.seed + static_cast<uint64_t>(member);
    fit_model(*model, {GraphConfigs{&labelled_, observed.configs, nullptr}}, {}, train);
    members_.push_back(std::move(model));
  }
}

void GnnLearner::fit(const Observations& observed) {
  fit_members(observed);
  for (const auto& member : members_) prepared_.push_back(std::make_unique<PreparedGraph>(member->prepare(graph_)));
}

std::vector<float> GnnLearner::predict(const std::vector<int32_t>& configs) const {
  check_invariant(!prepared_.empty(), "GnnLearner::predict before fit");
  // The members rank every candidate (the model computes distinct rows once); the listed ones are picked out.
  std::vector<float> sum(static_cast<size_t>(graph_.config_count), 0.0f);
  for (size_t k = 0; k < members_.size(); ++k) {
    add_standardised(members_[k]->predict(*prepared_[k], 64, options_.threads), 1.0 / static_cast<double>(members_.size()), sum);
  }
  std::vector<float> costs;
  costs.reserve(configs.size());
  for (const int32_t c : configs) costs.push_back(sum[static_cast<size_t>(c)]);
  return costs;
}

void GnnLearner::save(const std::string& path, const std::vector<std::string>& inputs) const {
  check_invariant(fitted(), "GnnLearner::save before fit");
  (void)inputs;  // CostModel::save writes atomically; the caller checked the path against its inputs
  members_.front()->save(path);
}

}  // namespace graphcost
