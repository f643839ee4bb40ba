// The tuning loop across a resume (src/tune/tuner.h, tuning_journal.h): what the journal keeps is
// enough for a resumed run to weigh its learners and choose its configs as the run it continues.
#include <catch2/catch.hpp>

#include <cmath>

#include "data/dataset_survey.h"
#include "data/tpu_graph.h"
#include "test_support.h"
#include "tune/oracles.h"
#include "tune/tuner.h"
#include "tune/tuning_journal.h"

using namespace graphcost;

TEST_CASE("a resumed tune weighs its learners as the run it continues did", "[tune]") {
  const std::string file = find_npz_files(testing::generate_tree("tuner_resume", "layout:xla:random", 1, 7, 30, 40)).front();
  const TuningTarget target = tuning_target_from_graph(load_tpu_graph(file), file);
  TuneOptions options;
  options.learner = TuneLearner::Weighed;  // both learners rank, and their record decides their shares
  options.budget = 12;
  options.per_round = 4;
  options.seed = 3;
  options.epochs = 1;  // the weights are the point here, not how well the GNN learns
  options.steps_per_epoch = 3;
  Tuner first(target, replay_oracle(target), nullptr, options);
  const std::string journal_path = testing::scratch_dir("tuner_resume_journal") + "/run.journal";
  {
    TuningJournalWriter journal(journal_path, {{"graphcost_tune", 1}}, false);
    for (int round = 0; round < 3; ++round) first.run_round([&](const Measurement& m) { journal.append(m); });
  }
  // Rounds 1 and 2 were predicted before they were measured: the record is not empty.
  REQUIRE(first.gnn_weight() != 0.5);

  const TuningJournal journal = read_tuning_journal(journal_path);
  REQUIRE(journal.measurements.size() == 12);
  CHECK(std::isnan(journal.measurements.front().predicted_gnn));  // round 0: no model yet
  CHECK(std::isfinite(journal.measurements.back().predicted_gnn));
  CHECK(std::isfinite(journal.measurements.back().predicted_ridge));
  Tuner resumed(target, replay_oracle(target), nullptr, options);
  resumed.restore(journal.measurements);
  CHECK(resumed.gnn_weight() == first.gnn_weight());

  // A journal written before the learners' costs were kept still resumes: even shares until the
  // next rounds decide.
  std::vector<Measurement> older = journal.measurements;
  for (Measurement& m : older) m.predicted_gnn = m.predicted_ridge = NAN;
  Tuner from_older(target, replay_oracle(target), nullptr, options);
  from_older.restore(older);
  CHECK(from_older.gnn_weight() == 0.5);
}

TEST_CASE("each learner ranks alone when it is the only one asked for", "[tune]") {
  const std::string file = find_npz_files(testing::generate_tree("tuner_learners", "layout:xla:random", 1, 7, 30, 20)).front();
  const TuningTarget target = tuning_target_from_graph(load_tpu_graph(file), file);
  // auto on a layout program is ridge (docs/tuning.md, "Which learner").
  for (const auto& [learner, weight] :
       {std::pair{TuneLearner::Gnn, 1.0}, {TuneLearner::Ridge, 0.0}, {TuneLearner::Blend, 0.5}, {TuneLearner::Auto, 0.0}}) {
    TuneOptions options;
    options.learner = learner;
    options.budget = 6;
    options.epochs = 1;
    options.steps_per_epoch = 2;
    Tuner tuner(target, replay_oracle(target), nullptr, options);
    const RoundReport report = tuner.run_round({});
    CHECK(tuner.gnn_weight() == weight);
    // The report's share is only for rankings that mix the two.
    CHECK(std::isnan(report.gnn_weight) == (learner != TuneLearner::Blend));
  }
  CHECK(resolve_learner(TuneLearner::Auto, GraphKind::Tile) == TuneLearner::Weighed);
}

TEST_CASE("a run killed between rounds and resumed measures what the uninterrupted run measured", "[tune]") {
  const std::string file = find_npz_files(testing::generate_tree("tuner_same_run", "layout:xla:random", 1, 11, 30, 40)).front();
  const TuningTarget target = tuning_target_from_graph(load_tpu_graph(file), file);
  const auto configs = [](const std::vector<Measurement>& measurements) {
    std::vector<int32_t> out;
    for (const Measurement& m : measurements) out.push_back(m.config);
    return out;
  };
  // previous: the resume fits again, round by round, the models the killed run had fitted (the
  // GNN alone shows it: weighed may give ridge, which has no past, all the weight); weighed: the
  // resume weighs the learners as the run did.
  for (const auto& [init, learner] :
       {std::pair{TuneInit::Previous, TuneLearner::Gnn}, {TuneInit::Previous, TuneLearner::Weighed}, {TuneInit::Scratch, TuneLearner::Weighed}}) {
    INFO("init " << name_of(tune_init_names(), init) << ", learner " << name_of(tune_learner_names(), learner));
    TuneOptions options;
    options.init = init;
    options.learner = learner;
    options.budget = 16;
    options.per_round = 4;
    options.seed = 5;
    options.epochs = 1;
    options.steps_per_epoch = 3;
    Tuner whole(target, replay_oracle(target), nullptr, options);
    while (!whole.done()) whole.run_round({});

    const std::string journal_path = testing::scratch_dir("tuner_same_run_journal") + "/run.journal";
    {
      Tuner killed(target, replay_oracle(target), nullptr, options);
      TuningJournalWriter journal(journal_path, {{"graphcost_tune", 1}}, false);
      for (int round = 0; round < 3; ++round) killed.run_round([&](const Measurement& m) { journal.append(m); });
    }
    Tuner resumed(target, replay_oracle(target), nullptr, options);
    resumed.restore(read_tuning_journal(journal_path).measurements);
    while (!resumed.done()) resumed.run_round({});
    CHECK(configs(resumed.measurements()) == configs(whole.measurements()));
    CHECK(resumed.costs() == whole.costs());
  }
}
