// The tuning loop across a resume (src/tune/tuner.h, tuning_journal.h): what the journal keeps is
// enough for a resumed run to weigh its learners and choose its configs as the run it continues.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "common/input_error.h"
#include "data/dataset_survey.h"
#include "data/graph_summary.h"
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
  options.learner.kind = LearnerKind::Weighed;  // both members rank, and their record decides their shares
  options.budget = 12;
  options.per_round = 4;
  options.seed = 3;
  options.learner.epochs = 1;  // the weights are the point here, not how well the GNN learns
  options.learner.steps_per_epoch = 3;
  Tuner first(target, replay_oracle(target), nullptr, options);
  const std::string journal_path = testing::scratch_dir("tuner_resume_journal") + "/run.journal";
  {
    TuningJournalWriter journal(journal_path, {{"graphcost_tune", 2}}, false);
    for (int round = 0; round < 3; ++round) first.run_round([&](const Measurement& m) { journal.append(m); });
  }
  const auto weight = [](const Tuner& tuner) { return tuner.learner()->describe().value("gnn_weight", -1.0); };
  // Rounds 1 and 2 were predicted before they were measured: the record is not empty.
  REQUIRE(weight(first) != 0.5);

  const TuningJournal journal = read_tuning_journal(journal_path);
  REQUIRE(journal.measurements.size() == 12);
  CHECK(journal.measurements.front().predicted_by.empty());  // round 0: no model yet
  CHECK(journal.measurements.back().predicted_by.count("gnn") == 1);
  CHECK(journal.measurements.back().predicted_by.count("ridge") == 1);
  Tuner resumed(target, replay_oracle(target), nullptr, options);
  resumed.restore(journal.measurements);
  // Its next round fits first, weighing the members by the journal's record: the same round as
  // the run that was not stopped.
  resumed.run_round({});
  first.run_round({});
  CHECK(weight(resumed) == weight(first));
  CHECK(resumed.costs() == first.costs());

  // A journal line written before "predicted_by" kept the two members in fields of their own.
  const Measurement older = measurement_from_json({{"config", 3},
                                                   {"status", "ok"},
                                                   {"round", 1},
                                                   {"runs", {0.5}},
                                                   {"seconds", 0.5},
                                                   {"predicted", 0.1},
                                                   {"predicted_gnn", 0.25},
                                                   {"predicted_ridge", -1.5}},
                                                  "old journal");
  CHECK(older.predicted_by.at("gnn") == 0.25f);
  CHECK(older.predicted_by.at("ridge") == -1.5f);
}

TEST_CASE("each learner ranks the candidates, and reports what it is", "[tune]") {
  const std::string file = find_npz_files(testing::generate_tree("tuner_learners", "layout:xla:random", 1, 7, 30, 20)).front();
  const TuningTarget target = tuning_target_from_graph(load_tpu_graph(file), file);
  for (const auto& [name, kind] : learner_names()) {
    INFO("learner " << name);
    if (kind == LearnerKind::Python) {  // a Python object's (tests/python): make_learner says so
      LearnerOptions python;
      python.kind = kind;
      CHECK_THROWS_AS(make_learner(target.graph, nullptr, python), InputError);
      continue;
    }
    TuneOptions options;
    options.learner.kind = kind;
    options.budget = 12;
    options.per_round = 6;
    options.learner.epochs = 1;
    options.learner.steps_per_epoch = 2;
    Tuner tuner(target, replay_oracle(target), nullptr, options);
    const RoundReport report = tuner.run_round({});
    REQUIRE(tuner.costs().size() == static_cast<size_t>(target.graph.config_count));
    CHECK(report.learner["learner"] == name);
    CHECK(report.learner.contains("gnn_weight") == (kind == LearnerKind::Weighed || kind == LearnerKind::Blend));
    if (kind == LearnerKind::Blend) CHECK(report.learner["gnn_weight"] == 0.5);
    if (kind == LearnerKind::Auto) {
      CHECK((report.learner["chosen"] == "xgboost" || report.learner["chosen"] == "ridge"));
      CHECK(report.learner["cross_validated_tau"].size() == 2);
    }
  }
}

TEST_CASE("a batch measures a repeated row only when no new row is left", "[tune]") {
  // Files repeat rows (the compiler's search logged the same config again): measuring one twice
  // teaches nothing. 8 distinct rows, each twice: 8 measurements take 8 rows, the 9th a repeat.
  const std::string file = find_npz_files(testing::generate_tree("tuner_rows", "layout:xla:random", 1, 9, 30, 40)).front();
  TpuGraph graph = load_tpu_graph(file);
  const std::vector<int32_t> distinct = distinct_config_indices(graph);
  REQUIRE(distinct.size() >= 8);
  const size_t width = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
  std::vector<int8_t> rows;
  std::vector<int64_t> runtimes;
  for (size_t c = 0; c < 16; ++c) {
    const size_t source = static_cast<size_t>(distinct[c % 8]);
    rows.insert(rows.end(), graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(source * width),
                graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>((source + 1) * width));
    runtimes.push_back(graph.config_runtime_ns[source] + static_cast<int64_t>(c));
  }
  graph.layout_config_features = rows;
  graph.config_runtime_ns = runtimes;
  graph.config_count = 16;
  const TuningTarget target = tuning_target_from_graph(graph, file);
  for (const TuneStrategy strategy : {TuneStrategy::Online, TuneStrategy::Random, TuneStrategy::FewestChanges}) {
    INFO("strategy " << name_of(tune_strategy_names(), strategy));
    TuneOptions options;
    options.strategy = strategy;
    options.budget = 9;
    options.per_round = 3;
    Tuner tuner(target, replay_oracle(target), nullptr, options);
    while (!tuner.done()) tuner.run_round({});
    std::set<int32_t> seen;
    for (size_t i = 0; i < 8; ++i) seen.insert(tuner.measurements()[i].config % 8);
    CHECK(seen.size() == 8);
    CHECK(tuner.measurements().size() == 9);
  }
}

TEST_CASE("a stopped measurement is not a measurement", "[tune]") {
  const std::string file = find_npz_files(testing::generate_tree("tuner_stopped", "layout:xla:random", 1, 7, 30, 20)).front();
  const TuningTarget target = tuning_target_from_graph(load_tpu_graph(file), file);
  Oracle oracle = replay_oracle(target);
  int calls = 0;
  const auto replay = oracle.measure;
  oracle.measure = [&](int32_t config) {
    if (++calls == 3) {
      Measurement stopped;
      stopped.status = MeasurementStatus::Stopped;
      return stopped;
    }
    return replay(config);
  };
  TuneOptions options;
  options.per_round = 5;
  Tuner tuner(target, oracle, nullptr, options);
  tuner.run_round({});
  CHECK(tuner.measurements().size() == 2);  // the round ends at the stop; nothing recorded for it
  CHECK_THROWS_AS(measurement_from_json(
                      {{"config", 1}, {"status", "stopped"}, {"round", 0}, {"runs", nlohmann::json::array()}, {"predicted", nullptr}}, "j"),
                  InputError);
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
  // resume weighs the learners as the run did; auto: cross-validation needs no past.
  for (const auto& [init, learner] : {std::pair{GnnInit::Previous, LearnerKind::Gnn},
                                      {GnnInit::Previous, LearnerKind::Weighed},
                                      {GnnInit::Scratch, LearnerKind::Weighed},
                                      {GnnInit::Previous, LearnerKind::Auto}}) {
    INFO("init " << name_of(gnn_init_names(), init) << ", learner " << name_of(learner_names(), learner));
    TuneOptions options;
    options.learner.init = init;
    options.learner.kind = learner;
    options.budget = 16;
    options.per_round = 4;
    options.seed = 5;
    options.learner.epochs = 1;
    options.learner.steps_per_epoch = 3;
    Tuner whole(target, replay_oracle(target), nullptr, options);
    while (!whole.done()) whole.run_round({});

    const std::string journal_path = testing::scratch_dir("tuner_same_run_journal") + "/run.journal";
    {
      Tuner killed(target, replay_oracle(target), nullptr, options);
      TuningJournalWriter journal(journal_path, {{"graphcost_tune", 2}}, false);
      for (int round = 0; round < 3; ++round) killed.run_round([&](const Measurement& m) { journal.append(m); });
    }
    Tuner resumed(target, replay_oracle(target), nullptr, options);
    resumed.restore(read_tuning_journal(journal_path).measurements);
    while (!resumed.done()) resumed.run_round({});
    CHECK(configs(resumed.measurements()) == configs(whole.measurements()));
    CHECK(resumed.costs() == whole.costs());
  }
}

TEST_CASE("ask and tell, a batch at a time, is the run run_round makes", "[tune]") {
  const std::string file = find_npz_files(testing::generate_tree("tuner_ask_tell", "layout:xla:random", 1, 7, 30, 40)).front();
  const auto configs = [](const std::vector<Measurement>& measurements) {
    std::vector<int32_t> out;
    for (const Measurement& m : measurements) out.push_back(m.config);
    return out;
  };
  const TuningTarget target = tuning_target_from_graph(load_tpu_graph(file), file);
  TuneOptions options;
  options.learner.kind = LearnerKind::Ridge;
  options.budget = 14;
  options.per_round = 4;
  options.seed = 7;
  Tuner whole(target, replay_oracle(target), nullptr, options);
  while (!whole.done()) whole.run_round({});
  const Oracle replay = replay_oracle(target);
  Tuner asked(target, replay_oracle(target), nullptr, options);
  while (!asked.done()) {
    const std::vector<int32_t> batch = asked.ask(2);  // half a round at a time: the round is the same
    for (const int32_t c : batch) {
      Measurement m = replay.measure(c);
      m.config = c;
      asked.tell(m);
    }
  }
  asked.settle();
  CHECK(configs(asked.measurements()) == configs(whole.measurements()));
  CHECK(asked.costs() == whole.costs());
  CHECK(asked.take_reports().size() == 4);  // rounds of 4, 4, 4 and 2
  // A config not asked, or told twice, is refused; a released one is asked again.
  Tuner strict(target, replay_oracle(target), nullptr, options);
  const std::vector<int32_t> two = strict.ask(2);
  Measurement m = replay.measure(two[0]);
  m.config = two[0];
  strict.tell(m);
  CHECK_THROWS_AS(strict.tell(m), InputError);
  strict.release(two[1]);
  CHECK(strict.asked().empty());
  const std::vector<int32_t> again = strict.ask(1);
  CHECK(again == std::vector<int32_t>{two[1]});
}
