#include "tune/tuner.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "data/graph_summary.h"
#include "learners/learner_support.h"
#include "metrics/kendall_tau.h"
#include "metrics/ranking_metrics.h"
#include "model/feature_encoder.h"
#include "scoring/baseline_order.h"
#include "tune/space_search.h"

namespace graphcost {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

const NameTable<TuneStrategy>& tune_strategy_names() {
  static const NameTable<TuneStrategy> names = {{"online", TuneStrategy::Online},
                                                {"zero-shot", TuneStrategy::ZeroShot},
                                                {"random", TuneStrategy::Random},
                                                {"fewest-changes", TuneStrategy::FewestChanges},
                                                {"genetic", TuneStrategy::Genetic}};
  return names;
}

const NameTable<TuneAcquisition>& tune_acquisition_names() {
  static const NameTable<TuneAcquisition> names = {
      {"best", TuneAcquisition::Best}, {"ucb", TuneAcquisition::Ucb}, {"thompson", TuneAcquisition::Thompson}};
  return names;
}

nlohmann::json TuneOptions::to_json() const {
  nlohmann::json json = {{"strategy", name_of(tune_strategy_names(), strategy)},
                         {"acquisition", name_of(tune_acquisition_names(), acquisition)},
                         {"bagged_fits", bagged_fits},
                         {"budget", budget},
                         {"per_round", per_round},
                         {"explore", explore},
                         {"seed", seed}};
  json["learner"] = learner.to_json();
  json["learner"].erase("seed");  // the run's seed, above
  return json;
}

void TuneOptions::check(const std::string& where) const {
  if (budget < 1) throw InputError(where, "budget", "1 or more measurements", std::to_string(budget));
  if (per_round < 1) throw InputError(where, "per_round", "1 or more measurements a round", std::to_string(per_round));
  if (!std::isnan(explore) && !(explore >= 0 && explore <= 1))
    throw InputError(where, "explore", "a share in [0, 1]", std::to_string(explore));
  if (bagged_fits < 2) throw InputError(where, "bagged_fits", "2 or more", std::to_string(bagged_fits));
  learner.check(where);
}

Tuner::Tuner(const TuningTarget& target, Oracle oracle, const CostModel* model, TuneOptions options, std::unique_ptr<Learner> learner)
    : target_(target), oracle_(std::move(oracle)), given_(model), options_(std::move(options)) {
  const TpuGraph& graph = target_.graph;
  options_.learner.seed = options_.seed;
  if (std::isnan(options_.explore)) options_.explore = default_explore(target_);
  options_.check(target_.path);
  const bool online = options_.strategy == TuneStrategy::Online;
  if (target_.space) check_space_options(model);
  const bool needs_model = options_.strategy == TuneStrategy::ZeroShot ||
                           (online && options_.learner.init == GnnInit::Model &&
                            (options_.learner.kind == LearnerKind::Gnn || options_.learner.kind == LearnerKind::Weighed ||
                             options_.learner.kind == LearnerKind::Blend));
  if (needs_model && model == nullptr) {
    throw InputError(target_.path, "model",
                     std::string("a model for the ") + name_of(tune_strategy_names(), options_.strategy) +
                         (online ? " strategy's GNN to start from (init model)" : " strategy"),
                     "none");
  }
  if (model != nullptr && model->config().kind != graph.kind) {
    throw InputError(target_.path, "model", std::string("a ") + graph_kind_name(graph.kind) + " model",
                     std::string("a ") + graph_kind_name(model->config().kind) + " model");
  }
  measured_.assign(static_cast<size_t>(graph.config_count), false);
  row_of_ = config_representatives(graph);
  if (options_.strategy == TuneStrategy::Genetic && !target_.space) {
    throw InputError(target_.path, "strategy",
                     "online, zero-shot, random or fewest-changes for a graph (genetic searches parameter spaces)", "genetic");
  }
  if (options_.strategy == TuneStrategy::FewestChanges)
    baseline_order_ = baseline_order(graph, BaselineStrategy::FewestChanges, options_.seed);
  if (online) learner_ = learner ? std::move(learner) : make_learner(graph, model, options_.learner);
  if (model != nullptr && (online || options_.strategy == TuneStrategy::ZeroShot)) {
    CostModel copy = model->clone();
    costs_ = copy.predict(copy.prepare(graph), 64, options_.learner.threads);
    choice_costs_ = costs_;
  }
  if (online && !target_.prior.empty()) costs_ = choice_costs_ = target_.prior;  // a warm start's ranking
}

double default_explore(const TuningTarget& target) { return target.space ? kSpaceExplore : kGraphExplore; }

void Tuner::check_space_options(const CostModel* model) const {
  const auto refuse = [&](const std::string& field, const std::string& expected, const std::string& actual) {
    throw InputError(target_.path, field, expected + " (a parameter space has no graph for the GNN)", actual);
  };
  if (model != nullptr) refuse("model", "no model", "a model");
  const TuneStrategy s = options_.strategy;
  if (s == TuneStrategy::ZeroShot || s == TuneStrategy::FewestChanges) {
    refuse("strategy", "online, random or genetic", name_of(tune_strategy_names(), s));
  }
  const LearnerKind k = options_.learner.kind;
  if (s == TuneStrategy::Online && k != LearnerKind::Auto && k != LearnerKind::Xgboost && k != LearnerKind::Ridge &&
      k != LearnerKind::Python) {
    refuse("learner", "auto, xgboost, ridge or a Python learner", name_of(learner_names(), k));
  }
}

std::vector<MemberRecord> Tuner::member_record() const {
  std::vector<MemberRecord> record;
  for (const Measurement& m : measurements_) {
    if (m.ok() && !m.predicted_by.empty()) record.push_back({m.round, m.predicted_by, m.seconds});
  }
  return record;
}

void Tuner::restore(const std::vector<Measurement>& measurements) {
  for (const Measurement& m : measurements) {
    if (m.config < 0 || m.config >= target_.graph.config_count || measured_[static_cast<size_t>(m.config)]) {
      throw InputError(target_.path, "journal", "each config of the target measured once",
                       "config " + std::to_string(m.config) + " again or out of range");
    }
    measured_[static_cast<size_t>(m.config)] = true;
    measurements_.push_back(m);
    round_ = std::max(round_, m.round + 1);
  }
  if (learner_) learner_->set_record(member_record());  // weighed's record of how each member ranked
}

bool Tuner::resume_refits() const { return learner_ != nullptr && learner_->fits_from_previous() && round_ > 1; }

bool Tuner::done() const {
  return static_cast<int>(measurements_.size() + asked_.size()) >= options_.budget ||
         std::all_of(measured_.begin(), measured_.end(), [](bool measured) { return measured; });
}

std::vector<int32_t> Tuner::choose_batch() {
  // The round's random draws come from the seed and the round alone, so that a run resumed at a
  // round's start draws what the uninterrupted run would have drawn.
  random_.seed(options_.seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(round_ + 1));
  const size_t count = static_cast<size_t>(target_.graph.config_count);
  std::vector<int32_t> unmeasured;
  for (int32_t c = 0; c < target_.graph.config_count; ++c) {
    if (!measured_[static_cast<size_t>(c)]) unmeasured.push_back(c);
  }
  const size_t size =
      std::min({static_cast<size_t>(options_.per_round), unmeasured.size(),
                static_cast<size_t>(std::max(0, options_.budget - static_cast<int>(measurements_.size() + asked_.size())))});
  std::vector<int32_t> batch;
  std::vector<bool> taken(count, false), row_seen(count, false);
  for (const Measurement& m : measurements_) row_seen[static_cast<size_t>(row_of_[static_cast<size_t>(m.config)])] = true;
  // A config whose row was measured (or taken) already is the same config again: skipped while others remain.
  bool new_rows_only = true;
  const auto take = [&](int32_t c) {
    const size_t row = static_cast<size_t>(row_of_[static_cast<size_t>(c)]);
    if (batch.size() >= size || measured_[static_cast<size_t>(c)] || taken[static_cast<size_t>(c)] || (new_rows_only && row_seen[row]))
      return;
    batch.push_back(c);
    taken[static_cast<size_t>(c)] = true;
    row_seen[row] = true;
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
  const auto take_best = [&](const std::vector<float>& costs, size_t until) {
    for (const int32_t c : order_by_cost(costs)) {
      if (batch.size() >= until) break;
      take(c);
    }
  };
  // Exploitation: the unmeasured configs the learner predicts faster than the best measured one
  // (by its own cost of that one), best first. A learner that ranks the best measured config level
  // with others (trees give a whole group one cost) has nothing to exploit there: the batch explores.
  const auto take_improving = [&](size_t until) {
    float incumbent = INFINITY;
    double best_seconds = INFINITY;
    for (const Measurement& m : measurements_) {
      if (m.ok() && m.seconds < best_seconds) best_seconds = m.seconds, incumbent = costs_[static_cast<size_t>(m.config)];
    }
    std::set<float> levels;  // configs the learner gives one cost are one guess: one of them a batch
    for (const int32_t c : order_by_cost(choice_costs_)) {
      const float cost = choice_costs_[static_cast<size_t>(c)];
      if (batch.size() >= until || !(cost < incumbent)) break;
      if (levels.count(cost)) continue;
      const size_t before = batch.size();
      take(c);
      if (batch.size() > before) levels.insert(cost);
    }
  };
  take(0);  // the reference: the module's own layouts (or the file's first config)
  const size_t exploit = size - std::min(size, static_cast<size_t>(std::lround(options_.explore * static_cast<double>(size))));
  for (const bool fresh_rows : {true, false}) {  // then, if the new rows ran out, any unmeasured config
    new_rows_only = fresh_rows;
    switch (options_.strategy) {
      case TuneStrategy::Random:
        take_random(size);
        break;
      case TuneStrategy::Genetic: {
        std::vector<bool> unavailable = measured_;
        for (size_t c = 0; c < count; ++c) unavailable[c] = unavailable[c] || taken[c];
        for (const int32_t c : genetic_children(*target_.space, measurements_, unavailable, size - batch.size(), random_)) take(c);
        take_random(size);
        break;
      }
      case TuneStrategy::FewestChanges:
        for (size_t i = baseline_next_; i < baseline_order_.size() && batch.size() < size; ++i) take(baseline_order_[i]);
        break;
      case TuneStrategy::ZeroShot:
        take_best(costs_, size);
        break;
      case TuneStrategy::Online:
        if (costs_.empty()) {
          take_random(size);
        } else if (options_.acquisition == TuneAcquisition::Thompson && !bagged_costs_.empty()) {
          for (size_t draw = 0; batch.size() < exploit && draw < exploit * bagged_costs_.size(); ++draw) {
            take_best(bagged_costs_[draw % bagged_costs_.size()], batch.size() + 1);
          }
          take_random(size);
        } else if (target_.space) {  // near the best measured first (tune/space_search.h), then anywhere
          const std::vector<float> near = neighbourhood_costs(*target_.space, measurements_, choice_costs_);
          for (const int32_t c : order_by_cost(near)) {
            if (batch.size() >= exploit || !std::isfinite(near[static_cast<size_t>(c)])) break;
            take(c);
          }
          take_best(choice_costs_, exploit);
          take_random(size);
        } else {
          take_improving(exploit);
          take_random(size);
        }
        break;
    }
  }
  if (options_.strategy == TuneStrategy::FewestChanges) {
    const auto used = [&](int32_t c) { return measured_[static_cast<size_t>(c)] || taken[static_cast<size_t>(c)]; };
    while (baseline_next_ < baseline_order_.size() && used(baseline_order_[baseline_next_])) ++baseline_next_;
  }
  return batch;
}

Observations Tuner::observations(size_t count) const {
  Observations observed;
  for (size_t i = 0; i < count; ++i) {
    if (!measurements_[i].ok()) continue;
    observed.configs.push_back(measurements_[i].config);
    observed.seconds.push_back(measurements_[i].seconds);
  }
  return observed;
}

void Tuner::learn() {
  learned_ = measurements_.size();
  if (learner_ == nullptr) return;
  const Observations observed = observations(measurements_.size());
  if (observed.configs.size() < 2) return;
  learner_->set_record(member_record());
  learner_->fit(observed);
  std::vector<int32_t> all(static_cast<size_t>(target_.graph.config_count));
  std::iota(all.begin(), all.end(), 0);
  costs_ = learner_->predict(all);
  choice_costs_ = costs_;
  if (options_.acquisition != TuneAcquisition::Best) bag();
}

void Tuner::bag() {
  // The learner fitted to bootstrap resamples of the measurements (seeded by the run and the round).
  const Observations observed = observations(measurements_.size());
  std::mt19937_64 random(options_.seed ^ (0xD1B54A32D192ED03ull * static_cast<uint64_t>(round_ + 1)));
  std::vector<int32_t> all(static_cast<size_t>(target_.graph.config_count));
  std::iota(all.begin(), all.end(), 0);
  bagged_costs_.clear();
  for (int fit = 0; fit < options_.bagged_fits; ++fit) {
    Observations resample;
    for (size_t i = 0; i < observed.configs.size(); ++i) {
      const size_t pick = random() % observed.configs.size();
      resample.configs.push_back(observed.configs[pick]);
      resample.seconds.push_back(observed.seconds[pick]);
    }
    std::unique_ptr<Learner> copy = learner_->fresh();
    copy->fit(resample);
    bagged_costs_.push_back(copy->predict(all));
  }
  if (options_.acquisition != TuneAcquisition::Ucb) return;
  // An optimistic cost: the bagged mean minus the bagged spread (costs on the learner's own scale).
  for (size_t c = 0; c < all.size(); ++c) {
    double sum = 0, square = 0;
    for (const auto& costs : bagged_costs_) sum += costs[c], square += static_cast<double>(costs[c]) * costs[c];
    const double n = static_cast<double>(bagged_costs_.size()), mean = sum / n;
    choice_costs_[c] = static_cast<float>(mean - std::sqrt(std::max(0.0, square / n - mean * mean)));
  }
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
  double pool_best = INFINITY;  // a config without a truth (NaN: a space's failed one) is in neither
  for (size_t c = 0; c < truth.size(); ++c) {
    if (!std::isfinite(truth[c])) continue;
    pool_best = std::min(pool_best, truth[c]);
    if (measured_[c]) continue;
    unmeasured_truth.push_back(truth[c]);
    if (!costs_.empty()) unmeasured_cost.push_back(costs_[c]);
  }
  double best_measured = INFINITY;
  for (const Measurement& m : measurements_) {
    if (std::isfinite(truth[static_cast<size_t>(m.config)])) best_measured = std::min(best_measured, truth[static_cast<size_t>(m.config)]);
  }
  report.best_over_pool_best = best_measured / pool_best;
  if (unmeasured_cost.size() >= 2) {
    report.unmeasured_tau = kendall_tau_b(unmeasured_cost.data(), unmeasured_truth.data(), unmeasured_cost.size());
    report.unmeasured_slowdown_at_5 = slowdown_at_k(unmeasured_truth, order_by_cost(unmeasured_cost), 5);
  }
}

void Tuner::begin_round() {
  round_start_ = Clock::now();
  if (learned_ < measurements_.size() && learner_ != nullptr) {  // resumed: learn what the journal holds
    if (resume_refits()) {
      // The fits the run made at the end of each of its rounds, again: each goes on from the one before.
      for (size_t i = 1; i < measurements_.size(); ++i) {
        if (measurements_[i].round != measurements_[i - 1].round) {
          const Observations observed = observations(i);
          if (observed.configs.size() >= 2) learner_->replay_fit(observed);
        }
      }
    }
    learn();
  }
  pending_ = choose_batch();
  round_untold_ = pending_.size();
  round_costs_ = costs_;
  round_members_ = learner_ ? learner_->member_costs() : std::map<std::string, std::vector<float>>{};
  round_predicted_.clear();
  round_measured_.clear();
  measure_start_ = last_told_ = Clock::now();
  round_open_ = true;
}

void Tuner::end_round() {
  RoundReport report;
  report.round = round_;
  report.measure_seconds = std::chrono::duration<double>(last_told_ - measure_start_).count();
  if (round_predicted_.size() >= 2)
    report.out_of_sample_tau = kendall_tau_b(round_predicted_.data(), round_measured_.data(), round_predicted_.size());
  const auto learn_start = Clock::now();
  learn();
  report.learn_seconds = seconds_since(learn_start);
  if (learner_ != nullptr && learner_->fitted()) report.learner = learner_->describe();
  score(report);
  report.seconds = seconds_since(round_start_);
  ++round_;
  round_open_ = false;
  pending_.clear();
  round_untold_ = 0;
  reports_.push_back(std::move(report));
}

std::vector<int32_t> Tuner::ask(size_t n) {
  std::vector<int32_t> handed;
  while (handed.size() < n) {
    if (round_open_ && pending_.empty()) end_round();  // the batch is out: learn from what is told, go on
    if (!round_open_) {
      if (done()) break;
      begin_round();
      if (pending_.empty()) {  // nothing left to choose (every candidate asked or measured)
        end_round();
        break;
      }
    }
    const int32_t config = pending_.front();
    pending_.erase(pending_.begin());
    Asked& asked = asked_[config];
    asked.round = round_;
    asked.predicted = round_costs_.empty() ? NAN : round_costs_[static_cast<size_t>(config)];
    for (const auto& [name, costs] : round_members_) asked.predicted_by[name] = costs[static_cast<size_t>(config)];
    measured_[static_cast<size_t>(config)] = true;  // taken: no batch chooses it again
    handed.push_back(config);
  }
  return handed;
}

const Measurement& Tuner::tell(Measurement m) {
  const auto at = asked_.find(m.config);
  if (at == asked_.end()) {
    throw InputError(
        target_.path, "config", "a config asked and not told yet",
        std::to_string(m.config) + (m.config >= 0 && m.config < target_.graph.config_count && measured_[static_cast<size_t>(m.config)]
                                        ? " (told already)"
                                        : " (not asked)"));
  }
  if (m.status == MeasurementStatus::Stopped) throw InputError(target_.path, "status", "a measurement's outcome", "stopped");
  m.round = at->second.round;
  m.predicted = at->second.predicted;
  m.predicted_by = at->second.predicted_by;
  const bool this_round = round_open_ && at->second.round == round_;
  asked_.erase(at);
  if (m.ok() && std::isfinite(m.predicted) && this_round) {
    round_predicted_.push_back(m.predicted);
    round_measured_.push_back(m.seconds);
  }
  if (this_round) --round_untold_;
  measurements_.push_back(std::move(m));
  last_told_ = Clock::now();
  return measurements_.back();
}

void Tuner::release(int32_t config) {
  const auto at = asked_.find(config);
  if (at == asked_.end()) throw InputError(target_.path, "config", "a config asked and not told yet", std::to_string(config));
  const bool this_round = round_open_ && at->second.round == round_;
  asked_.erase(at);
  if (this_round) {
    pending_.insert(pending_.begin(), config);  // the next ask hands it out first
  } else {
    measured_[static_cast<size_t>(config)] = false;  // its round is over: a later batch may choose it
  }
}

bool Tuner::settle() {
  if (!round_open_ || !pending_.empty() || round_untold_ > 0) return false;
  end_round();
  return true;
}

std::vector<int32_t> Tuner::asked() const {
  std::vector<int32_t> configs;
  for (const auto& [config, asked] : asked_) configs.push_back(config);
  return configs;
}

std::vector<RoundReport> Tuner::take_reports() {
  std::vector<RoundReport> reports;
  reports.swap(reports_);
  return reports;
}

RoundReport Tuner::run_round(const std::function<void(const Measurement&)>& on_measured, const std::function<bool()>& stop) {
  if (round_open_ || !asked_.empty()) throw InternalError("Tuner::run_round: configs asked and not told");
  take_reports();
  begin_round();  // a round even when done: it learns (and reports) what is measured, as a resumed run's first round does
  const std::vector<int32_t> batch = ask(pending_.size());
  size_t made = 0;
  for (; made < batch.size(); ++made) {
    if (stop && stop()) break;
    Measurement m = oracle_.measure(batch[made]);
    if (m.status == MeasurementStatus::Stopped) break;  // interrupted: not a measurement, measured again on resume
    m.config = batch[made];
    const Measurement& recorded = tell(std::move(m));
    if (on_measured) on_measured(recorded);
  }
  for (size_t i = made; i < batch.size(); ++i) {  // stopped: not measured, free for a later round
    release(batch[i]);
    measured_[static_cast<size_t>(batch[i])] = false;
  }
  if (round_open_) end_round();
  std::vector<RoundReport> reports = take_reports();
  if (reports.size() != 1) throw InternalError("Tuner::run_round: " + std::to_string(reports.size()) + " rounds ended");
  return reports.front();
}

TpuGraph Tuner::measured_graph() const {
  const TpuGraph& graph = target_.graph;
  TpuGraph out = graph;
  out.config_runtime_ns.clear();
  out.config_runtime_normalizers_ns.clear();
  out.layout_config_features.clear();
  out.tile_config_features.clear();
  const size_t width =
      graph.kind == GraphKind::Tile ? kTileConfigFeatureCount : static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  double config0 = NAN;
  for (const Measurement& m : measurements_) {
    if (m.ok() && m.config == 0) config0 = m.seconds;
  }
  for (const Measurement& m : measurements_) {
    if (!m.ok()) continue;
    const size_t c = static_cast<size_t>(m.config);
    if (graph.kind == GraphKind::Tile) {
      out.tile_config_features.insert(out.tile_config_features.end(),
                                      graph.tile_config_features.begin() + static_cast<std::ptrdiff_t>(c * width),
                                      graph.tile_config_features.begin() + static_cast<std::ptrdiff_t>((c + 1) * width));
      // The default config's runtime, as the dataset normalizes: config 0's measured one here.
      out.config_runtime_normalizers_ns.push_back(graph.config_runtime_normalizers_ns.size() == graph.config_runtime_ns.size() &&
                                                          target_.recorded()
                                                      ? graph.config_runtime_normalizers_ns[c]
                                                      : runtime_ns(std::isnan(config0) ? m.seconds : config0));
    } else {
      out.layout_config_features.insert(out.layout_config_features.end(),
                                        graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(c * width),
                                        graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>((c + 1) * width));
    }
    out.config_runtime_ns.push_back(runtime_ns(m.seconds));
  }
  out.config_count = static_cast<int32_t>(out.config_runtime_ns.size());
  out.runtimes_hidden = false;
  out.location = DatasetPath{};
  return out;
}

}  // namespace graphcost
