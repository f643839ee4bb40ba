#include "learners/auto_learner.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "common/internal_error.h"
#include "learners/learner_support.h"

namespace graphcost {

double cross_validated_tau(const Learner& learner, const Observations& observed, int folds, uint64_t seed) {
  const size_t n = observed.configs.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(seed ^ (0x9E3779B97F4A7C15ull * n));
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[random() % i]);
  double weighed = 0, pairs = 0;
  for (int fold = 0; fold < folds; ++fold) {
    Observations train, held;
    for (size_t i = 0; i < n; ++i) {
      Observations& into = static_cast<int>(i % static_cast<size_t>(folds)) == fold ? held : train;
      into.configs.push_back(observed.configs[order[i]]);
      into.seconds.push_back(observed.seconds[order[i]]);
    }
    if (held.configs.size() < 2 || train.configs.size() < 2) continue;
    std::unique_ptr<Learner> copy = learner.fresh();
    copy->fit(train);
    const double tau = tau_of(copy->predict(held.configs), held.seconds);
    const double fold_pairs = static_cast<double>(held.configs.size() * (held.configs.size() - 1) / 2);
    if (std::isfinite(tau)) weighed += tau * fold_pairs, pairs += fold_pairs;
  }
  return pairs > 0 ? weighed / pairs : NAN;
}

AutoLearner::AutoLearner(const TpuGraph& graph, const LearnerOptions& options) : graph_(graph), options_(options) {
  check_invariant(!options_.candidates.empty(), "AutoLearner: no candidate learners");
  for (const LearnerKind kind : options_.candidates) {
    check_invariant(kind != LearnerKind::Auto, "AutoLearner: auto among its own candidates");
    LearnerOptions candidate = options_;
    candidate.kind = kind;
    candidates_.push_back(make_learner(graph, nullptr, candidate));
  }
  chosen_kind_ = options_.candidates.front();
  taus_.assign(candidates_.size(), NAN);
}

void AutoLearner::fit(const Observations& observed) {
  const int folds = std::min<int>(options_.folds, static_cast<int>(observed.configs.size() / 2));
  size_t best = 0;
  std::fill(taus_.begin(), taus_.end(), NAN);
  if (folds >= 2) {
    for (size_t k = 0; k < candidates_.size(); ++k) taus_[k] = cross_validated_tau(*candidates_[k], observed, folds, options_.seed);
    for (size_t k = 1; k < candidates_.size(); ++k) {
      if (std::isfinite(taus_[k]) && (!std::isfinite(taus_[best]) || taus_[k] > taus_[best])) best = k;
    }
  }
  chosen_kind_ = candidates_[best]->kind();
  chosen_ = candidates_[best]->fresh();
  chosen_->fit(observed);
}

std::vector<float> AutoLearner::predict(const std::vector<int32_t>& configs) const {
  check_invariant(fitted(), "AutoLearner::predict before fit");
  return chosen_->predict(configs);
}

nlohmann::json AutoLearner::describe() const {
  nlohmann::json json = Learner::describe();
  json["chosen"] = name_of(learner_names(), chosen_kind_);
  nlohmann::json taus = nlohmann::json::object();
  for (size_t k = 0; k < candidates_.size(); ++k) {
    taus[name_of(learner_names(), candidates_[k]->kind())] = std::isfinite(taus_[k]) ? nlohmann::json(taus_[k]) : nlohmann::json(nullptr);
  }
  json["cross_validated_tau"] = taus;
  return json;
}

void AutoLearner::save(const std::string& path, const std::vector<std::string>& inputs) const {
  check_invariant(fitted(), "AutoLearner::save before fit");
  chosen_->save(path, inputs);
}

}  // namespace graphcost
