// The tuning loop (`graphcost tune`, the app's Tune panel, the Python package): rounds of "rank the
// candidates, measure a batch, learn from every measurement so far" (docs/tuning.md).
//
// Strategies:
//   online          a learner (learners/learner.h: auto by default) is fitted to every measurement
//                   after each round; a batch is its best unmeasured configs plus a share drawn at
//                   random among the unmeasured (exploration: the learner sees where it is wrong),
//                   or chosen by its bagged fits' spread (TuneAcquisition). Before two measurements
//                   a batch is random, or the given model's best when a model is given. A batch
//                   prefers configs whose row differs from every config measured: a repeated row
//                   measures the same config again.
//   zero-shot       the given model as it is: each batch its best unmeasured configs.
//   random          configs at random.
//   fewest-changes  configs in order of the fewest configurable nodes changed from the file's most
//                   common values (scoring/baseline_order.h).
//   genetic         parameter spaces: Kernel Tuner's genetic algorithm, a generation a round
//                   (tune/space_search.h): the model-free local search a learned one must beat.
// A parameter space (tune/space_target.h) is tuned by online (xgboost, ridge or auto), random or
// genetic; its warm start's costs are the first ranking, as a given model's are for a graph.
// Every strategy measures config 0 (the module's own layouts, or the file's first config) in its
// first batch: the reference that "best vs config 0" is measured against.
//
// Determinism: the same target, oracle, options and seed give the same measurements in the same
// order. Measurements are handed out as they are made (on_measured), so a caller can journal each
// before the next; restore() replays a journal into a new Tuner (resume).
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/named_values.h"
#include "learners/learner.h"
#include "model/cost_model.h"
#include "tune/oracles.h"
#include "tune/tuning_target.h"

namespace graphcost {

enum class TuneStrategy { Online, ZeroShot, Random, FewestChanges, Genetic };
// "online", "zero-shot", "random", "fewest-changes", "genetic"
const NameTable<TuneStrategy>& tune_strategy_names();

// online: how a batch is chosen from the learner's costs (docs/tuning.md, "Which configs next").
//   best        the learner's best unmeasured configs, plus `explore` of the batch at random
//   ucb         the same, ranked by an optimistic cost: the mean over bagged fits (the learner
//               fitted to bootstrap resamples of the measurements) minus their spread
//   thompson    each pick the best of one bagged fit, drawn in turn, plus `explore` at random
enum class TuneAcquisition { Best, Ucb, Thompson };
const NameTable<TuneAcquisition>& tune_acquisition_names();  // "best", "ucb", "thompson"

// The exploration share by target: on the shared real files, a third of each batch at random kept
// the learners' view of a program broad enough (docs/tuning.md); on the shared parameter spaces, a
// tenth: the neighbourhood of the best configs is where the better ones were (tune/space_search.h).
inline constexpr double kGraphExplore = 0.3, kSpaceExplore = 0.1;
double default_explore(const TuningTarget& target);

struct TuneOptions {
  TuneStrategy strategy = TuneStrategy::Online;
  // online: what learns from the measurements (learners/learner.h; its seed is `seed`).
  LearnerOptions learner;
  TuneAcquisition acquisition = TuneAcquisition::Best;
  int bagged_fits = 8;  // ucb, thompson: the bootstrap fits each round
  int budget = 100;     // measurements in all, failed ones included
  int per_round = 10;
  // online: the share of each batch drawn at random among the unmeasured; NaN: the target's
  // default (kGraphExplore, kSpaceExplore), set when the Tuner starts (default_explore).
  double explore = NAN;
  uint64_t seed = 0;

  // Every option that shapes a run (a tuning journal's header: resuming with another is refused).
  nlohmann::json to_json() const;
  // InputError naming the option (library names: "per_round", not "--per-round").
  void check(const std::string& where) const;
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
  // The learner after the round's fit (Learner::describe: its name, auto's choice and taus,
  // weighed's GNN share); null without one.
  nlohmann::json learner;
};

class Tuner {
 public:
  // `model`: the given model (zero-shot, the first ranking, the GNN's warm start with init model);
  // may be null for random, fewest-changes and online from scratch. Its kind must be the target's.
  // `learner`: the online strategy's learner when given (a Python object's, options.learner.kind
  // python); otherwise made from options.learner.
  Tuner(const TuningTarget& target, Oracle oracle, const CostModel* model, TuneOptions options, std::unique_ptr<Learner> learner = nullptr);

  // Measurements made before (a journal being resumed): taken as measured, and learned from at
  // the start of the next round.
  void restore(const std::vector<Measurement>& measurements);

  // One round: choose a batch, measure it (on_measured after each measurement; `stop` polled
  // before each: true ends the round early, the measurement in hand kept unless the oracle said it
  // was stopped), learn from everything measured, rank again. Returns the round's report.
  RoundReport run_round(const std::function<void(const Measurement&)>& on_measured, const std::function<bool()>& stop = {});
  // Nothing left to ask: the budget is measured or asked, or every candidate is.
  bool done() const;

  // Ask/tell: the caller measures (in parallel, on other machines, in batches; Python's
  // graphcost.Tuner), run_round is the same made in one call. ask(n) hands out up to n configs of
  // the round's batch; when the batch is all handed out, the next ask ends the round (learning from
  // everything told so far) and begins the next. An asked config stays taken until it is told.
  // tell(m) records the measurement of an asked config (m.config; its round and the learner's cost
  // when it was asked are filled in) and returns it as recorded (nothing is learned in tell: the
  // caller journals it first). InputError for a config not asked or told already. settle() ends
  // the round when its whole batch is told (learned from, reported); ask does it too.
  std::vector<int32_t> ask(size_t n);
  const Measurement& tell(Measurement m);
  bool settle();
  // Gives an asked config back untold (a measurement abandoned): the next ask hands it out first
  // while its round is open; after, a later batch may choose it.
  void release(int32_t config);
  std::vector<int32_t> asked() const;       // asked and not told, in config order
  std::vector<RoundReport> take_reports();  // the rounds ended since the last call, in order

  const std::vector<Measurement>& measurements() const { return measurements_; }
  // The current cost of every candidate (lower = predicted faster): the learner's after its last
  // fit, or the given model's before; empty while there is neither.
  const std::vector<float>& costs() const { return costs_; }
  // The learner (online; null for the other strategies), fitted once two measurements are made.
  const Learner* learner() const { return learner_.get(); }
  const TuningTarget& target() const { return target_; }
  const TuneOptions& options() const { return options_; }
  int round() const { return round_; }
  // After restore: the next round first fits again, round by round, what the journal's rounds
  // fitted (a learner whose fit goes on from the one before), so the run goes on as the one it continues.
  bool resume_refits() const;

  // The target's graph with the measured runtimes only, and its ok configs: a labelled TpuGraphs
  // file of everything measured (tune --out) keeps just those configs.
  TpuGraph measured_graph() const;

 private:
  // A config handed out by ask: its round and the costs it was chosen with.
  struct Asked {
    int round = 0;
    float predicted = NAN;
    std::map<std::string, float> predicted_by;
  };
  std::vector<int32_t> choose_batch();
  void begin_round();  // learn what a resumed journal holds, choose the batch, keep the costs it was chosen by
  void end_round();    // learn from everything told, score, report; the next round's number
  void check_space_options(const CostModel* model) const;  // InputError for what a parameter space cannot do
  Observations observations(size_t count) const;           // the ok measurements among the first `count`
  void learn();
  void bag();  // ucb, thompson: the bagged fits' costs
  void score(RoundReport& report) const;
  std::vector<MemberRecord> member_record() const;

  const TuningTarget& target_;
  Oracle oracle_;
  const CostModel* given_;
  TuneOptions options_;
  std::mt19937_64 random_;  // the exploration's draws, seeded each round (choose_batch)
  std::unique_ptr<Learner> learner_;
  std::vector<std::vector<float>> bagged_costs_;  // ucb, thompson: each bagged fit's costs of every candidate
  std::vector<int32_t> row_of_;                   // each candidate's first config with the same row (data/graph_summary.h)
  std::vector<Measurement> measurements_;
  std::vector<bool> measured_;
  std::vector<float> costs_;
  std::vector<float> choice_costs_;      // what a batch is chosen by: costs_, or ucb's optimistic costs
  std::vector<int32_t> baseline_order_;  // fewest-changes
  size_t baseline_next_ = 0;
  int round_ = 0;
  size_t learned_ = 0;  // measurements the learner has been fitted on
  // The open round (ask/tell): its batch not handed out yet, how many of its configs are untold,
  // the costs its batch was chosen by, its new measurements' costs before they were made (the
  // out-of-sample tau), and when it began and when its last measurement came.
  bool round_open_ = false;
  std::vector<int32_t> pending_;
  size_t round_untold_ = 0;
  std::vector<float> round_costs_;
  std::map<std::string, std::vector<float>> round_members_;
  std::vector<double> round_predicted_, round_measured_;
  std::chrono::steady_clock::time_point round_start_, measure_start_, last_told_;
  std::map<int32_t, Asked> asked_;
  std::vector<RoundReport> reports_;
};

}  // namespace graphcost
