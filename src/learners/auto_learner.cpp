#include "learners/auto_learner.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <numeric>
#include <random>
#include <system_error>
#include <thread>

#include "common/internal_error.h"
#include "learners/learner_support.h"

namespace graphcost {

std::vector<double> cross_validated_fold_taus(const Learner& learner, const Observations& observed, int folds, uint64_t seed) {
  const size_t n = observed.configs.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(seed ^ (0x9E3779B97F4A7C15ull * n));
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[random() % i]);
  std::vector<Observations> train(static_cast<size_t>(folds)), held(static_cast<size_t>(folds));
  for (int fold = 0; fold < folds; ++fold) {
    for (size_t i = 0; i < n; ++i) {
      Observations& into = static_cast<int>(i % static_cast<size_t>(folds)) == fold ? held[fold] : train[fold];
      into.configs.push_back(observed.configs[order[i]]);
      into.seconds.push_back(observed.seconds[order[i]]);
    }
  }
  std::vector<double> taus(static_cast<size_t>(folds), NAN);
  const auto score = [&](size_t fold) {
    if (held[fold].configs.size() < 2 || train[fold].configs.size() < 2) return;
    std::unique_ptr<Learner> copy = learner.fresh();
    copy->fit(train[fold]);
    taus[fold] = tau_of(copy->predict(held[fold].configs), held[fold].seconds);
  };
  // The folds of XGBoost and ridge are fitted side by side, one fresh learner each (their fits
  // share nothing); the GNN's one at a time (it threads its own work). Each fold's tau is the same
  // whichever thread fits it. Where no thread can start (WebAssembly), this one fits every fold.
  const bool side_by_side = learner.kind() == LearnerKind::Xgboost || learner.kind() == LearnerKind::Ridge;
  const size_t workers = side_by_side ? std::min<size_t>(taus.size(), std::max(1u, std::thread::hardware_concurrency())) : 1;
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  const auto work = [&] {
    for (size_t fold = next++; fold < taus.size(); fold = next++) {
      try {
        score(fold);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(failure_lock);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  try {
    for (size_t w = 1; w < workers; ++w) threads.emplace_back(work);
  } catch (const std::system_error&) {  // no threads (WebAssembly without pthreads)
  }
  work();
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  return taus;
}

namespace {

double mean_of_finite(const std::vector<double>& values) {
  double sum = 0;
  int n = 0;
  for (const double v : values) {
    if (std::isfinite(v)) sum += v, ++n;
  }
  return n > 0 ? sum / n : NAN;
}

// By how much `challenger`'s fold taus beat `incumbent`'s, fold by fold (the same folds), and the
// standard error of that mean difference; NaN with fewer than 2 folds scored by both.
std::pair<double, double> paired_lead(const std::vector<double>& challenger, const std::vector<double>& incumbent) {
  std::vector<double> leads;
  for (size_t f = 0; f < challenger.size(); ++f) {
    if (std::isfinite(challenger[f]) && std::isfinite(incumbent[f])) leads.push_back(challenger[f] - incumbent[f]);
  }
  if (leads.size() < 2) return {NAN, NAN};
  const double mean = mean_of_finite(leads);
  double square = 0;
  for (const double d : leads) square += (d - mean) * (d - mean);
  const double n = static_cast<double>(leads.size());
  return {mean, std::sqrt(square / (n - 1) / n)};
}

}  // namespace

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
  size_t chosen = 0;
  std::fill(taus_.begin(), taus_.end(), NAN);
  if (folds >= 2) {
    // The first candidate unless another ranked the held-out folds better by more than one
    // standard error of the paired difference (Breiman's one-standard-error rule): a lead within
    // the folds' noise does not move the choice (docs/tuning.md, "Which learner").
    std::vector<std::vector<double>> fold_taus;
    for (size_t k = 0; k < candidates_.size(); ++k) {
      fold_taus.push_back(cross_validated_fold_taus(*candidates_[k], observed, folds, options_.seed));
      taus_[k] = mean_of_finite(fold_taus[k]);
    }
    double best_lead = 0;
    for (size_t k = 1; k < candidates_.size(); ++k) {
      const auto [lead, error] = paired_lead(fold_taus[k], fold_taus[0]);
      if (std::isfinite(lead) && lead > error && lead > best_lead) best_lead = lead, chosen = k;
    }
  }
  chosen_kind_ = candidates_[chosen]->kind();
  chosen_ = candidates_[chosen]->fresh();
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
