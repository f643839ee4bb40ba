// The tuning loop (`graphcost tune`, the app's Tune panel, the Python package): rounds of "rank the
// candidates, measure a batch, learn from every measurement so far" (docs/tuning.md).
//
// Strategies:
//   online          the model is fine-tuned on every measurement after each round (train/trainer.h's
//                   fit_model: the one training loop), starting from the given model or from
//                   scratch (TuneOptions::init); a batch is the model's best unmeasured configs plus
//                   a share drawn at random among the unmeasured (exploration: the model sees where
//                   it is wrong). Before the model has seen two measurements, a batch is random
//                   (from scratch) or the given model's best (warm start).
//   zero-shot       the given model as it is: each batch its best unmeasured configs.
//   random          configs at random.
//   fewest-changes  configs in order of the fewest configurable nodes changed from the file's most
//                   common values (scoring/baseline_order.h).
// Every strategy measures config 0 (the module's own layouts, or the file's first config) in its
// first batch: the reference that "best vs config 0" is measured against.
//
// Determinism: the same target, oracle, options and seed give the same measurements in the same
// order. Measurements are handed out as they are made (on_measured), so a caller can journal each
// before the next; restore() replays a journal into a new Tuner (resume).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "common/named_values.h"
#include "model/cost_model.h"
#include "train/trainer.h"
#include "tune/oracles.h"
#include "tune/tuning_target.h"

namespace graphcost {

enum class TuneStrategy { Online, ZeroShot, Random, FewestChanges };
const NameTable<TuneStrategy>& tune_strategy_names();  // "online", "zero-shot", "random", "fewest-changes"
// online: each round's fit starts from a fresh model (scratch), from --model's weights (model), or
// from the model the round before fitted (previous; the first round from scratch).
enum class TuneInit { Scratch, Model, Previous };
const NameTable<TuneInit>& tune_init_names();  // "scratch", "model", "previous"
// What `online` learns from the measurements: the GNN (graph + config), ridge regression on the
// one-hot config values (train/ridge_ranker.h: per node for layout, values and whole rows; the 24
// features for tile), or both, their standardised costs averaged (blend).
// weighed: both are fitted every round, and each round's ranking weighs them by how well each
// ranked the measurements made since, predicted before they were made (its out-of-sample tau,
// averaged over the rounds).
// auto (the default): what real data found best for the target's kind (docs/tuning.md, "Which
// learner"): ridge for a layout program, weighed for a tile kernel.
enum class TuneLearner { Gnn, Ridge, Blend, Weighed, Auto };
const NameTable<TuneLearner>& tune_learner_names();  // "gnn", "ridge", "blend", "weighed", "auto"
// auto as the learner it stands for on a target of `kind`; any other learner as it is.
TuneLearner resolve_learner(TuneLearner learner, GraphKind kind);

struct TuneOptions {
  TuneStrategy strategy = TuneStrategy::Online;
  TuneInit init = TuneInit::Previous;  // online: the model each fit starts from (docs/tuning.md says why previous)
  TuneLearner learner = TuneLearner::Auto;
  int budget = 100;                   // measurements in all, failed ones included
  int per_round = 10;
  double explore = 0.3;  // online: the share of each batch drawn at random among the unmeasured
  uint64_t seed = 0;
  // The fine-tuning recipe (train/trainer.h's options): per round, `epochs` x `steps_per_epoch`
  // steps of `configs_per_step` measured configs (all of them while fewer are measured); from
  // scratch, a model of `scratch_model`'s shape (docs/tuning.md, "The fit").
  int epochs = 4, steps_per_epoch = 50, configs_per_step = 32;
  float learning_rate = 2e-3f;
  RankingLoss loss = RankingLoss::ListMle;
  ModelConfig scratch_model;
  // Models fitted per round (seeds seed, seed+1, ...), their costs averaged after standardising
  // each: fewer measurements are noisier to learn from, and an ensemble's ranking varies less.
  int ensemble = 1;
  int threads = 1;  // ranking
};

struct RoundReport {
  int round = 0;
  int measured = 0, ok = 0, failed = 0;  // so far
  double best_seconds = NAN;             // the best measured runtime so far
  double config0_seconds = NAN;          // config 0's measured runtime (NaN: not measured or failed)
  // Kendall tau-b of the model's costs for this round's new measurements, predicted before they
  // were measured, against what was measured: the honest out-of-sample figure (NaN: fewer than 2
  // ok, or no model yet).
  double out_of_sample_tau = NAN;
  // With an oracle that knows every runtime (replay): the final-model figures on the configs not
  // measured yet, and the best measured against the best of all candidates.
  double unmeasured_tau = NAN, unmeasured_slowdown_at_5 = NAN, best_over_pool_best = NAN;
  double seconds = 0, measure_seconds = 0, learn_seconds = 0;  // the round; its measurements; fit and rank
  // Learners weighed and blend: the GNN's share of the next ranking (ridge has the rest); NaN else.
  double gnn_weight = NAN;
};

class Tuner {
 public:
  // `model`: the given model (zero-shot, warm start, the first ranking); may be null for random,
  // fewest-changes and online from scratch. Its kind must be the target's.
  Tuner(const TuningTarget& target, Oracle oracle, const CostModel* model, TuneOptions options);

  // Measurements made before (a journal being resumed): taken as measured, and learned from at
  // the start of the next round.
  void restore(const std::vector<Measurement>& measurements);

  // One round: choose a batch, measure it (on_measured after each measurement; `stop` polled
  // before each: true ends the round early, the measurement in hand kept unless the oracle said it
  // was stopped), learn from everything measured, rank again. Returns the round's report.
  RoundReport run_round(const std::function<void(const Measurement&)>& on_measured, const std::function<bool()>& stop = {});
  bool done() const;

  const std::vector<Measurement>& measurements() const { return measurements_; }
  // The current model's cost of every candidate (lower = predicted faster); empty for strategies
  // without a model until one is given.
  const std::vector<float>& costs() const { return costs_; }
  const CostModel* model() const { return current_.get(); }
  const TuningTarget& target() const { return target_; }
  const TuneOptions& options() const { return options_; }
  int round() const { return round_; }
  // After restore: the next round first fits again, round by round, the GNN models the journal's
  // rounds fitted (init previous), so that the run goes on as the one it continues would have.
  bool resume_refits() const;
  // The GNN's share of the ranking when both learners rank (weighed: from how each ranked the rounds
  // so far, before their measurements were made; blend: 0.5); 1 with the GNN alone, 0 with ridge.
  double gnn_weight() const;

  // The target's graph with the measured runtimes only (the rest 0), and its ok configs: what the
  // model is fitted on. A labelled TpuGraphs file of everything measured (tune --out) keeps just
  // those configs.
  TpuGraph measured_graph() const;

 private:
  std::vector<int32_t> choose_batch();
  // Fits on the first `count` measurements. Not for_ranking (a resume's replayed rounds): the GNN
  // members only, the next fit's starting point; no ridge, no prepared graphs.
  void learn(size_t count, bool for_ranking = true);
  void rank();
  void score(RoundReport& report) const;

  const TuningTarget& target_;
  Oracle oracle_;
  const CostModel* given_;
  TuneOptions options_;
  std::mt19937_64 random_;  // the exploration's draws, seeded each round (choose_batch)
  std::unique_ptr<CostModel> current_;  // the model ranking the candidates (a copy of the given one, or fitted)
  std::unique_ptr<PreparedGraph> prepared_;
  std::vector<std::unique_ptr<CostModel>> members_;  // the ensemble beside current_ (its first member)
  std::vector<std::unique_ptr<PreparedGraph>> member_prepared_;
  std::vector<float> ridge_costs_;  // the ridge learner's costs of every candidate (empty: none)
  std::vector<float> gnn_costs_;    // the GNN ensemble's (standardised) costs (empty: none)
  // weighed: each learner's out-of-sample tau per round (on the round's new measurements, predicted
  // before they were made: Measurement::predicted_gnn and predicted_ridge, so a resume has them).
  std::vector<double> gnn_round_taus_, ridge_round_taus_;
  void record_learner_taus(int round);
  TpuGraph training_graph_;             // the target's graph with the measured runtimes only
  std::vector<Measurement> measurements_;
  std::vector<bool> measured_;
  std::vector<float> costs_;
  std::vector<int32_t> baseline_order_;  // fewest-changes
  size_t baseline_next_ = 0;
  int round_ = 0;
  size_t learned_ = 0;  // measurements the current model has been fitted on
};

}  // namespace graphcost
