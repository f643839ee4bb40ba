// Learner: what `graphcost tune` learns a program from its own measurements with (as TVM's
// CostModel): fitted to the measured configs of one target, it gives a cost (lower = predicted
// faster) for every candidate. The tuner holds a learner and knows nothing of its internals.
//
//   gnn      the GNN cost model (model/), fine-tuned on the measurements by the trainer's loop
//            (train/trainer.h's fit_model); an ensemble of `ensemble` members, each starting from
//            scratch, the given model, or its own previous fit (GnnInit)
//   ridge    ridge regression on one-hot config values (train/ridge_ranker.h)
//   xgboost  gradient-boosted trees (XGBoost) on the config values that vary (learners/boosted_trees.h)
//   weighed  the GNN and ridge, each round weighed by how each ranked the round's new measurements
//            before they were made; blend: the same two at equal shares
//   auto     (the default) the learner among xgboost and ridge that ranked best the measurements it
//            had not seen, by cross-validation on the measured configs, chosen again at every fit
//   python   a Python object with scikit-learn's fit(X, y) / predict(X) (python/src/python_learner.h:
//            X the configs' varying values, as xgboost's, y log seconds); given to the Tuner by the
//            Python package, never made by make_learner
// docs/tuning.md, "Which learner", says what each does on real measurements.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/named_values.h"
#include "data/tpu_graph.h"
#include "learners/boosted_trees.h"
#include "model/cost_model.h"
#include "train/trainer.h"

namespace graphcost {

enum class LearnerKind { Gnn, Ridge, Xgboost, Blend, Weighed, Auto, Python };
// "gnn", "ridge", "xgboost", "blend", "weighed", "auto", "python"
const NameTable<LearnerKind>& learner_names();

// What each GNN fit starts from: a fresh model (scratch), the given model's weights (model: a warm
// start from a model trained on other programs), or the model the fit before gave (previous; the
// first fit from scratch).
enum class GnnInit { Scratch, Model, Previous };
const NameTable<GnnInit>& gnn_init_names();  // "scratch", "model", "previous"

struct LearnerOptions {
  LearnerKind kind = LearnerKind::Auto;
  uint64_t seed = 0;
  // The GNN's fine-tuning recipe (train/trainer.h's options): per fit, `epochs` x `steps_per_epoch`
  // steps of `configs_per_step` measured configs (all of them while fewer are measured); from
  // scratch, a model of `scratch_model`'s shape (docs/tuning.md, "The GNN's fit").
  GnnInit init = GnnInit::Previous;
  int epochs = 4, steps_per_epoch = 50, configs_per_step = 32;
  float learning_rate = 2e-3f;
  RankingLoss loss = RankingLoss::ListMle;
  ModelConfig scratch_model;
  // GNN models fitted per fit (seeds seed, seed+1, ...), their costs averaged after standardising each.
  int ensemble = 1;
  int threads = 1;  // the GNN's ranking
  BoostedTreesOptions trees;
  // auto: the learners it chooses among, in order of preference on a tie, and the folds of its
  // cross-validation (at most; fewer while few configs are measured).
  std::vector<LearnerKind> candidates = {LearnerKind::Xgboost, LearnerKind::Ridge};
  int folds = 5;

  // Every option as JSON (the tuning journal's header: a resume with other options is refused).
  nlohmann::json to_json() const;
  // Checks ranges (InputError naming the option, in library terms: "epochs", not "--epochs").
  void check(const std::string& where) const;
};

// The measurements a learner is fitted to: configs of the target's graph and their runtimes.
struct Observations {
  std::vector<int32_t> configs;
  std::vector<double> seconds;
};

// One measurement's costs before it was made, by member learner (weighed: "gnn" and "ridge"), and
// what was measured: how a combination learns how far to trust each member.
struct MemberRecord {
  int round = 0;
  std::map<std::string, float> predicted;
  double seconds = 0;
};

class Learner {
 public:
  virtual ~Learner() = default;
  virtual LearnerKind kind() const = 0;
  // Fits to the observations (at least 2 configs; all of the target's graph). Replaces the fit before,
  // or goes on from it (fits_from_previous).
  virtual void fit(const Observations& observed) = 0;
  virtual bool fitted() const = 0;
  // The cost of each listed config of the target (lower = predicted faster).
  virtual std::vector<float> predict(const std::vector<int32_t>& configs) const = 0;
  // True when predict's costs are log runtimes (xgboost; ridge's are standardised per program), so
  // that a difference of costs is a predicted speedup (rank with a learner file).
  virtual bool costs_are_log_runtimes() const { return false; }
  // A learner of the same kind and options with nothing fitted (cross-validation, bagging).
  virtual std::unique_ptr<Learner> fresh() const = 0;

  // True when a fit goes on from the one before (the GNN with init previous): a resumed run fits
  // again, round by round, what the run it continues fitted (replay_fit) before its next fit.
  virtual bool fits_from_previous() const { return false; }
  virtual void replay_fit(const Observations& observed) { (void)observed; }
  // Combinations: each member's cost of every candidate from the last fit, by name (empty for one
  // learner), and the record of rounds they learn their shares from (taken whole on resume).
  virtual std::map<std::string, std::vector<float>> member_costs() const { return {}; }
  virtual void set_record(const std::vector<MemberRecord>& record) { (void)record; }
  // What it is doing now, for reports: {"learner": name, ...} (auto: its choice and the
  // cross-validated taus; weighed: the GNN's share).
  virtual nlohmann::json describe() const;
  // The fitted learner written to `path` (tune --model-out): a model file for the GNN, a learner
  // file (JSON, learners/learner_file.h) for the others. `inputs` are never overwritten.
  virtual void save(const std::string& path, const std::vector<std::string>& inputs) const = 0;
};

// A learner of options.kind for `graph` (the target's: its configs are the candidates). `given`:
// the model init model starts from (may be null otherwise); it must outlive the learner.
std::unique_ptr<Learner> make_learner(const TpuGraph& graph, const CostModel* given, const LearnerOptions& options);

}  // namespace graphcost
