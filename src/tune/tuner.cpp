#include "tune/tuner.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "metrics/kendall_tau.h"
#include "metrics/ranking_metrics.h"
#include "model/feature_encoder.h"
#include "scoring/baseline_order.h"
#include "train/ridge_ranker.h"
#include "train/trainer.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

int64_t to_ns(double seconds) { return std::max<int64_t>(1, static_cast<int64_t>(std::llround(std::min(seconds, 9e9) * 1e9))); }

}  // namespace

const NameTable<TuneStrategy>& tune_strategy_names() {
  static const NameTable<TuneStrategy> names = {{"online", TuneStrategy::Online},
                                                {"zero-shot", TuneStrategy::ZeroShot},
                                                {"random", TuneStrategy::Random},
                                                {"fewest-changes", TuneStrategy::FewestChanges}};
  return names;
}

const NameTable<TuneLearner>& tune_learner_names() {
  static const NameTable<TuneLearner> names = {
      {"gnn", TuneLearner::Gnn}, {"ridge", TuneLearner::Ridge}, {"blend", TuneLearner::Blend}, {"weighed", TuneLearner::Weighed},
      {"auto", TuneLearner::Auto}};
  return names;
}

TuneLearner resolve_learner(TuneLearner learner, GraphKind kind) {
  if (learner != TuneLearner::Auto) return learner;
  return kind == GraphKind::Layout ? TuneLearner::Ridge : TuneLearner::Weighed;
}

const NameTable<TuneInit>& tune_init_names() {
  static const NameTable<TuneInit> names = {{"scratch", TuneInit::Scratch}, {"model", TuneInit::Model}, {"previous", TuneInit::Previous}};
  return names;
}

Tuner::Tuner(const TuningTarget& target, Oracle oracle, const CostModel* model, TuneOptions options)
    : target_(target), oracle_(std::move(oracle)), given_(model), options_(std::move(options)) {
  const TpuGraph& graph = target_.graph;
  options_.learner = resolve_learner(options_.learner, graph.kind);
  if (options_.budget < 1) throw InputError(target_.path, "budget", "1 or more measurements", std::to_string(options_.budget));
  if (options_.per_round < 1) throw InputError(target_.path, "per-round", "1 or more measurements a round", std::to_string(options_.per_round));
  if (!(options_.explore >= 0 && options_.explore <= 1)) {
    throw InputError(target_.path, "explore", "a share in [0, 1]", std::to_string(options_.explore));
  }
  const bool needs_model = options_.strategy == TuneStrategy::ZeroShot || (options_.strategy == TuneStrategy::Online && options_.init == TuneInit::Model);
  if (needs_model && model == nullptr) {
    throw InputError(target_.path, "model", std::string("a model for the ") + name_of(tune_strategy_names(), options_.strategy) +
                                                (options_.strategy == TuneStrategy::Online ? " strategy started from a model (--init model)" : " strategy"),
                     "none");
  }
  if (model != nullptr && model->config().kind != graph.kind) {
    throw InputError(target_.path, "model", std::string("a ") + graph_kind_name(graph.kind) + " model",
                     std::string("a ") + graph_kind_name(model->config().kind) + " model");
  }
  training_graph_ = graph;
  std::fill(training_graph_.config_runtime_ns.begin(), training_graph_.config_runtime_ns.end(), 0);
  if (graph.kind == GraphKind::Tile && training_graph_.config_runtime_normalizers_ns.size() != static_cast<size_t>(graph.config_count)) {
    training_graph_.config_runtime_normalizers_ns.assign(static_cast<size_t>(graph.config_count), 1);
  }
  std::fill(training_graph_.config_runtime_normalizers_ns.begin(), training_graph_.config_runtime_normalizers_ns.end(), 1);
  training_graph_.runtimes_hidden = false;
  measured_.assign(static_cast<size_t>(graph.config_count), false);
  if (options_.strategy == TuneStrategy::FewestChanges) baseline_order_ = baseline_order(graph, BaselineStrategy::FewestChanges, options_.seed);
  if (model != nullptr && options_.strategy != TuneStrategy::Random && options_.strategy != TuneStrategy::FewestChanges) {
    current_ = std::make_unique<CostModel>(model->clone());
    prepared_ = std::make_unique<PreparedGraph>(current_->prepare(graph));
    rank();
  }
}

void Tuner::restore(const std::vector<Measurement>& measurements) {
  for (const Measurement& m : measurements) {
    if (m.config < 0 || m.config >= target_.graph.config_count || measured_[static_cast<size_t>(m.config)]) {
      throw InputError(target_.path, "journal", "each config of the target measured once", "config " + std::to_string(m.config) + " again or out of range");
    }
    measured_[static_cast<size_t>(m.config)] = true;
    if (m.ok()) training_graph_.config_runtime_ns[static_cast<size_t>(m.config)] = to_ns(m.seconds);
    measurements_.push_back(m);
    round_ = std::max(round_, m.round + 1);
  }
  // weighed's record of how each learner ranked the rounds before, from the costs the journal kept.
  gnn_round_taus_.clear();
  ridge_round_taus_.clear();
  for (int round = 0; round < round_; ++round) record_learner_taus(round);
}

void Tuner::record_learner_taus(int round) {
  std::vector<double> gnn, ridge, measured;
  for (const Measurement& m : measurements_) {
    if (m.round != round || !m.ok() || !std::isfinite(m.predicted_gnn) || !std::isfinite(m.predicted_ridge)) continue;
    gnn.push_back(m.predicted_gnn);
    ridge.push_back(m.predicted_ridge);
    measured.push_back(m.seconds);
  }
  if (measured.size() < 2) return;
  gnn_round_taus_.push_back(kendall_tau_b(gnn.data(), measured.data(), measured.size()));
  ridge_round_taus_.push_back(kendall_tau_b(ridge.data(), measured.data(), measured.size()));
}

bool Tuner::resume_refits() const {
  return options_.strategy == TuneStrategy::Online && options_.init == TuneInit::Previous && options_.learner != TuneLearner::Ridge &&
         round_ > 1;
}

bool Tuner::done() const {
  return static_cast<int>(measurements_.size()) >= options_.budget ||
         std::all_of(measured_.begin(), measured_.end(), [](bool measured) { return measured; });
}

std::vector<int32_t> Tuner::choose_batch() {
  // The round's random draws come from the seed and the round alone, so that a run resumed at a
  // round's start draws what the uninterrupted run would have drawn.
  random_.seed(options_.seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(round_ + 1));
  std::vector<int32_t> unmeasured;
  for (int32_t c = 0; c < target_.graph.config_count; ++c) {
    if (!measured_[static_cast<size_t>(c)]) unmeasured.push_back(c);
  }
  const size_t size = std::min({static_cast<size_t>(options_.per_round), unmeasured.size(),
                                static_cast<size_t>(std::max(0, options_.budget - static_cast<int>(measurements_.size())))});
  std::vector<int32_t> batch;
  std::vector<bool> taken(static_cast<size_t>(target_.graph.config_count), false);
  const auto take = [&](int32_t c) {
    if (batch.size() < size && !measured_[static_cast<size_t>(c)] && !taken[static_cast<size_t>(c)]) {
      batch.push_back(c);
      taken[static_cast<size_t>(c)] = true;
    }
  };
  const auto take_random = [&](size_t until) {
    std::vector<int32_t> pool;
    for (const int32_t c : unmeasured) {
      if (!taken[static_cast<size_t>(c)]) pool.push_back(c);
    }
    for (size_t i = 0; i < pool.size() && batch.size() < until; ++i) {  // a partial Fisher-Yates shuffle
      std::swap(pool[i], pool[i + random_() % (pool.size() - i)]);
      take(pool[i]);
    }
  };
  const auto take_best = [&](size_t until) {
    for (const int32_t c : order_by_cost(costs_)) {
      if (batch.size() >= until) break;
      take(c);
    }
  };
  take(0);  // the reference: the module's own layouts (or the file's first config)
  const bool model_ready = !costs_.empty();
  switch (options_.strategy) {
    case TuneStrategy::Random: take_random(size); break;
    case TuneStrategy::FewestChanges:
      while (batch.size() < size && baseline_next_ < baseline_order_.size()) take(baseline_order_[baseline_next_++]);
      break;
    case TuneStrategy::ZeroShot: take_best(size); break;
    case TuneStrategy::Online:
      if (!model_ready) {
        take_random(size);
      } else {
        const size_t explore = static_cast<size_t>(std::lround(options_.explore * static_cast<double>(size)));
        take_best(size - std::min(explore, size));
        take_random(size);
      }
      break;
  }
  return batch;
}

void Tuner::learn(size_t count, bool for_ranking) {
  if (options_.strategy != TuneStrategy::Online) return;
  std::vector<int32_t> configs;
  for (size_t i = 0; i < count; ++i) {
    if (measurements_[i].ok()) configs.push_back(measurements_[i].config);
  }
  learned_ = count;
  if (configs.size() < 2) return;
  std::vector<std::unique_ptr<CostModel>> previous = std::move(members_);
  members_.clear();
  member_prepared_.clear();
  ridge_costs_.clear();
  if (options_.learner != TuneLearner::Gnn && for_ranking) {
    RidgeRanker ridge(ConfigEncoding::PerNode);
    ridge.fit({GraphConfigs{&training_graph_, configs, nullptr}});
    std::vector<int32_t> all(static_cast<size_t>(target_.graph.config_count));
    std::iota(all.begin(), all.end(), 0);
    ridge_costs_ = ridge.predict(target_.graph, all);
  }
  if (options_.learner == TuneLearner::Ridge) return;
  for (int member = 0; member < std::max(1, options_.ensemble); ++member) {
    std::unique_ptr<CostModel> model;
    if (options_.init == TuneInit::Model) {
      model = std::make_unique<CostModel>(given_->clone());
    } else if (options_.init == TuneInit::Previous && static_cast<size_t>(member) < previous.size()) {
      model = std::move(previous[static_cast<size_t>(member)]);
    } else {
      ModelConfig config = options_.scratch_model;
      config.kind = target_.graph.kind;
      config.collection = "tune";
      config.seed = options_.seed + static_cast<uint64_t>(member);
      model = std::make_unique<CostModel>(config, fit_feature_statistics({&target_.graph}));
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
    fit_model(*model, {GraphConfigs{&training_graph_, configs, nullptr}}, {}, train);
    if (for_ranking) member_prepared_.push_back(std::make_unique<PreparedGraph>(model->prepare(target_.graph)));
    members_.push_back(std::move(model));
  }
  if (!for_ranking) return;
  // current_ stands for the ensemble (its first member: the model a caller saves or reads).
  current_ = std::make_unique<CostModel>(members_.front()->clone());
  prepared_ = std::make_unique<PreparedGraph>(current_->prepare(target_.graph));
}

namespace {

// `costs` standardised (mean 0, sd 1), added to `sum` with `weight`.
void add_standardised(const std::vector<float>& costs, double weight, std::vector<float>& sum) {
  double mean = 0, square = 0;
  for (const float c : costs) mean += c;
  mean /= static_cast<double>(costs.size());
  for (const float c : costs) square += (c - mean) * (c - mean);
  const double sd = std::sqrt(square / static_cast<double>(costs.size())) + 1e-12;
  for (size_t c = 0; c < costs.size(); ++c) sum[c] += static_cast<float>(weight * (costs[c] - mean) / sd);
}

}  // namespace

double Tuner::gnn_weight() const {
  switch (options_.learner) {
    case TuneLearner::Gnn: return 1.0;
    case TuneLearner::Ridge: return 0.0;
    case TuneLearner::Blend: return 0.5;
    case TuneLearner::Weighed:
    case TuneLearner::Auto: break;  // auto is resolved in the constructor
  }
  // The learner that ranked the new measurements better so far gets the weight; even at first.
  const auto mean = [](const std::vector<double>& taus) {
    double sum = 0;
    int n = 0;
    for (const double tau : taus) {
      if (std::isfinite(tau)) sum += tau, ++n;
    }
    return n > 0 ? sum / n : NAN;
  };
  const double gnn = mean(gnn_round_taus_), ridge = mean(ridge_round_taus_);
  if (!std::isfinite(gnn) || !std::isfinite(ridge)) return 0.5;
  return std::clamp(0.5 + 2.5 * (gnn - ridge), 0.0, 1.0);  // a lead of 0.2 in tau takes all the weight
}

void Tuner::rank() {
  if (current_ == nullptr && ridge_costs_.empty()) return;
  if (members_.empty() && ridge_costs_.empty()) {  // the given model, before any fit
    costs_ = current_->predict(*prepared_, 64, options_.threads);
    return;
  }
  // The ensemble's and ridge's costs standardised (their scales differ), then weighed (gnn_weight).
  gnn_costs_.clear();
  if (!members_.empty()) {
    gnn_costs_.assign(static_cast<size_t>(target_.graph.config_count), 0.0f);
    for (size_t k = 0; k < members_.size(); ++k) {
      add_standardised(members_[k]->predict(*member_prepared_[k], 64, options_.threads), 1.0 / static_cast<double>(members_.size()), gnn_costs_);
    }
  }
  costs_.assign(static_cast<size_t>(target_.graph.config_count), 0.0f);
  const double weight = gnn_costs_.empty() ? 0.0 : ridge_costs_.empty() ? 1.0 : gnn_weight();
  if (!gnn_costs_.empty()) add_standardised(gnn_costs_, weight, costs_);
  if (!ridge_costs_.empty()) add_standardised(ridge_costs_, 1.0 - weight, costs_);
}

void Tuner::score(RoundReport& report) const {
  for (const Measurement& m : measurements_) {
    ++report.measured;
    if (!m.ok()) {
      ++report.failed;
      continue;
    }
    ++report.ok;
    if (!(m.seconds >= report.best_seconds)) report.best_seconds = m.seconds;
    if (m.config == 0) report.config0_seconds = m.seconds;
  }
  const std::vector<double>& truth = oracle_.truth;
  if (truth.empty()) return;
  std::vector<double> unmeasured_truth, unmeasured_cost;
  for (size_t c = 0; c < truth.size(); ++c) {
    if (measured_[c]) continue;
    unmeasured_truth.push_back(truth[c]);
    if (!costs_.empty()) unmeasured_cost.push_back(costs_[c]);
  }
  double best_measured = INFINITY;
  for (const Measurement& m : measurements_) best_measured = std::min(best_measured, truth[static_cast<size_t>(m.config)]);
  report.best_over_pool_best = best_measured / *std::min_element(truth.begin(), truth.end());
  if (unmeasured_cost.size() >= 2) {
    report.unmeasured_tau = kendall_tau_b(unmeasured_cost.data(), unmeasured_truth.data(), unmeasured_cost.size());
    report.unmeasured_slowdown_at_5 = slowdown_at_k(unmeasured_truth, order_by_cost(unmeasured_cost), 5);
  }
}

RoundReport Tuner::run_round(const std::function<void(const Measurement&)>& on_measured, const std::function<bool()>& stop) {
  const auto start = Clock::now();
  RoundReport report;
  report.round = round_;
  if (learned_ < measurements_.size() && options_.strategy == TuneStrategy::Online) {  // resumed: learn what the journal holds
    if (resume_refits()) {
      // The fits the run made at the end of each of its rounds, again: each starts from the one before.
      for (size_t i = 1; i < measurements_.size(); ++i) {
        if (measurements_[i].round != measurements_[i - 1].round) learn(i, false);
      }
    }
    learn(measurements_.size());
    rank();
  }
  const std::vector<int32_t> batch = choose_batch();
  const std::vector<float> predicted_before = costs_, gnn_before = gnn_costs_, ridge_before = ridge_costs_;
  std::vector<double> batch_predicted, batch_measured;
  const auto measure_start = Clock::now();
  for (const int32_t config : batch) {
    if (stop && stop()) break;
    Measurement m = oracle_.measure(config);
    if (m.message == "stopped") break;  // interrupted: not a measurement, measured again on resume
    m.config = config;
    m.round = round_;
    m.predicted = predicted_before.empty() ? NAN : predicted_before[static_cast<size_t>(config)];
    if (!gnn_before.empty() && !ridge_before.empty()) {
      m.predicted_gnn = gnn_before[static_cast<size_t>(config)];
      m.predicted_ridge = ridge_before[static_cast<size_t>(config)];
    }
    measured_[static_cast<size_t>(config)] = true;
    if (m.ok()) {
      training_graph_.config_runtime_ns[static_cast<size_t>(config)] = to_ns(m.seconds);
      if (!predicted_before.empty()) {
        batch_predicted.push_back(m.predicted);
        batch_measured.push_back(m.seconds);
      }
    }
    measurements_.push_back(m);
    if (on_measured) on_measured(m);
  }
  report.measure_seconds = seconds_since(measure_start);
  record_learner_taus(round_);  // each learner's honest figure on this batch
  if (batch_predicted.size() >= 2) report.out_of_sample_tau = kendall_tau_b(batch_predicted.data(), batch_measured.data(), batch_predicted.size());
  const auto learn_start = Clock::now();
  learn(measurements_.size());
  rank();
  report.learn_seconds = seconds_since(learn_start);
  if (!gnn_costs_.empty() && !ridge_costs_.empty()) report.gnn_weight = gnn_weight();
  score(report);
  report.seconds = seconds_since(start);
  ++round_;
  return report;
}

TpuGraph Tuner::measured_graph() const {
  const TpuGraph& graph = target_.graph;
  TpuGraph out = graph;
  out.config_runtime_ns.clear();
  out.config_runtime_normalizers_ns.clear();
  out.layout_config_features.clear();
  out.tile_config_features.clear();
  const size_t width = graph.kind == GraphKind::Tile ? kTileConfigFeatureCount
                                                     : static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  double config0 = NAN;
  for (const Measurement& m : measurements_) {
    if (m.ok() && m.config == 0) config0 = m.seconds;
  }
  for (const Measurement& m : measurements_) {
    if (!m.ok()) continue;
    const size_t c = static_cast<size_t>(m.config);
    if (graph.kind == GraphKind::Tile) {
      out.tile_config_features.insert(out.tile_config_features.end(), graph.tile_config_features.begin() + static_cast<std::ptrdiff_t>(c * width),
                                      graph.tile_config_features.begin() + static_cast<std::ptrdiff_t>((c + 1) * width));
      // The default config's runtime, as the dataset normalizes: config 0's measured one here.
      out.config_runtime_normalizers_ns.push_back(
          graph.config_runtime_normalizers_ns.size() == graph.config_runtime_ns.size() && target_.recorded()
              ? graph.config_runtime_normalizers_ns[c]
              : to_ns(std::isnan(config0) ? m.seconds : config0));
    } else {
      out.layout_config_features.insert(out.layout_config_features.end(),
                                        graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(c * width),
                                        graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>((c + 1) * width));
    }
    out.config_runtime_ns.push_back(to_ns(m.seconds));
  }
  out.config_count = static_cast<int32_t>(out.config_runtime_ns.size());
  out.runtimes_hidden = false;
  out.location = DatasetPath{};
  return out;
}

}  // namespace graphcost
