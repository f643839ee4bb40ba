// bench/tune_replay: every tuning strategy (tune/tuner.h) replayed on real measured files and on
// generated ones, at several budgets and seeds: the ranking of the configs not measured (Kendall
// tau-b, top-5 slowdown), the best measured against the file's best, the fit's time per round, and
// ridge on one-hot configs fitted to the same measurements as the reference. Prints the machine,
// medians over seeds, and ratios to the random strategy and to ridge; --markdown writes the table
// docs/tuning.md shows. Run: bash bench/tune_replay.sh (the shared real files and a generated tree).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>

#include "data/graph_summary.h"
#include "hlo/graph_file.h"
#include "hlo/module_file.h"
#include "hlo/tuning_records.h"
#include "learners/learner.h"
#include "machine.h"
#include "metrics/kendall_tau.h"
#include "metrics/ranking_metrics.h"
#include "tune/tuner.h"

using namespace graphcost;

namespace {

struct Options {
  std::vector<std::string> files, strategies = {"online", "zero-shot", "random", "fewest-changes"};
  std::vector<int> budgets = {10, 30, 100, 300};
  int seeds = 5;
  std::string model_layout, model_tile, markdown;
  TuneOptions tune;
};

struct Run {
  double tau = NAN, slowdown = NAN, best = NAN, ridge_tau = NAN, xgboost_tau = NAN, learn_seconds = 0;
  int rounds = 0;
};

double median(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The targets: each file's graph (a TuningData gives one per kernel), labelled, with 2+ distinct configs.
std::vector<TuningTarget> load_targets(const std::vector<std::string>& paths) {
  std::vector<TuningTarget> targets;
  for (const std::string& path : paths) {
    std::vector<std::pair<TpuGraph, std::string>> graphs;
    if (!is_npz_file(path)) {
      std::string bytes = read_module_file(path);
      if (detect_module_file_format(bytes, path) == ModuleFileFormat::TuningData) {
        for (const ModuleTuningRecord& record : read_tuning_records(std::make_shared<const std::string>(std::move(bytes)), path, true)) {
          if (record.runs.size() <= 1) continue;
          graphs.emplace_back(tile_graph_from_record(record, ""), std::filesystem::path(path).stem().string() + "." + record.module.name);
        }
      } else {
        graphs.emplace_back(load_graph_file(path).graph, std::filesystem::path(path).stem().string());
      }
    } else {
      graphs.emplace_back(load_tpu_graph(path), std::filesystem::path(path).stem().string());
    }
    for (auto& [graph, label] : graphs) {
      if (graph.runtimes_hidden || count_distinct_configs(graph) < 12) continue;  // too few to rank the unmeasured after 10
      const std::string kind = graph.kind == GraphKind::Tile ? "tile" : graph.location.in_tree() ? graph.location.collection : "layout";
      targets.push_back(tuning_target_from_graph(std::move(graph), label + " (" + kind + ")"));
    }
  }
  return targets;
}

Run run_one(const TuningTarget& target, TuneStrategy strategy, int budget, uint64_t seed, const CostModel* model, const Options& options) {
  TuneOptions tune = options.tune;
  tune.strategy = strategy;
  tune.budget = budget;
  tune.per_round = std::min(budget, tune.per_round);
  tune.seed = seed;
  Tuner tuner(target, replay_oracle(target), model, tune);
  Run run;
  RoundReport last;
  while (!tuner.done()) {
    last = tuner.run_round({});
    run.learn_seconds += last.learn_seconds;
    ++run.rounds;
  }
  run.tau = last.unmeasured_tau;
  run.slowdown = last.unmeasured_slowdown_at_5;
  run.best = last.best_over_pool_best;
  // Ridge and XGBoost fitted to the same measurements, ranking the same unmeasured configs: the
  // reference columns (what a learner alone makes of the measurements this strategy chose).
  Observations observed;
  std::vector<bool> seen(static_cast<size_t>(target.graph.config_count), false);
  for (const Measurement& m : tuner.measurements()) {
    seen[static_cast<size_t>(m.config)] = true;
    if (m.ok()) observed.configs.push_back(m.config), observed.seconds.push_back(m.seconds);
  }
  std::vector<int32_t> unmeasured;
  for (int32_t c = 0; c < target.graph.config_count; ++c) {
    if (!seen[static_cast<size_t>(c)]) unmeasured.push_back(c);
  }
  if (observed.configs.size() >= 2 && unmeasured.size() >= 2) {
    const std::vector<double> all = config_ranking_targets(target.graph);
    std::vector<double> truth;
    for (const int32_t c : unmeasured) truth.push_back(all[static_cast<size_t>(c)]);
    for (const auto& [kind, field] : {std::pair{LearnerKind::Ridge, &Run::ridge_tau}, std::pair{LearnerKind::Xgboost, &Run::xgboost_tau}}) {
      LearnerOptions reference;
      reference.kind = kind;
      std::unique_ptr<Learner> learner = make_learner(target.graph, nullptr, reference);
      learner->fit(observed);
      const std::vector<float> cost = learner->predict(unmeasured);
      const std::vector<double> predicted(cost.begin(), cost.end());
      run.*field = kendall_tau_b(predicted.data(), truth.data(), predicted.size());
    }
  }
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench/tune_replay: tuning strategies replayed on measured files (docs/tuning.md)"};
  Options options;
  app.add_option("files", options.files, "labelled .npz files or tuning records")->required();
  app.add_option("--strategies", options.strategies)->delimiter(',');
  app.add_option("--budgets", options.budgets)->delimiter(',');
  app.add_option("--seeds", options.seeds);
  app.add_option("--model-layout", options.model_layout, "zero-shot's layout model");
  app.add_option("--model-tile", options.model_tile, "zero-shot's tile model");
  app.add_option("--markdown", options.markdown, "write the table here");
  LearnerOptions& learner_options = options.tune.learner;
  app.add_option("--epochs", learner_options.epochs);
  app.add_option("--steps-per-epoch", learner_options.steps_per_epoch);
  app.add_option("--configs-per-step", learner_options.configs_per_step);
  app.add_option("--ensemble", learner_options.ensemble);
  app.add_option("--explore", options.tune.explore);
  app.add_option("--per-round", options.tune.per_round);
  app.add_option("--hidden", learner_options.scratch_model.hidden);
  app.add_option("--layers", learner_options.scratch_model.layers);
  app.add_option("--hops", learner_options.scratch_model.hops);
  app.add_option("--learning-rate", learner_options.learning_rate);
  app.add_option("--folds", learner_options.folds);
  app.add_option("--trees", learner_options.trees.rounds);
  app.add_option("--tree-depth", learner_options.trees.max_depth);
  app.add_flag("--relative-configs", learner_options.scratch_model.relative_configs);
  // The defaults are graphcost tune's (TuneOptions).
  std::string loss = name_of(ranking_loss_names(), learner_options.loss), learner = name_of(learner_names(), learner_options.kind),
              init = name_of(gnn_init_names(), learner_options.init),
              acquisition = name_of(tune_acquisition_names(), options.tune.acquisition);
  std::vector<std::string> candidates;
  app.add_option("--init", init, "the GNN: previous, scratch or model (--model-layout / --model-tile)");
  app.add_option("--learner", learner);
  app.add_option("--candidates", candidates, "auto's learners")->delimiter(',');
  app.add_option("--acquisition", acquisition);
  app.add_option("--loss", loss);
  CLI11_PARSE(app, argc, argv);
  learner_options.loss = value_named(ranking_loss_names(), loss, "--loss");
  learner_options.kind = value_named(learner_names(), learner, "--learner");
  learner_options.init = value_named(gnn_init_names(), init, "--init");
  options.tune.acquisition = value_named(tune_acquisition_names(), acquisition, "--acquisition");
  if (!candidates.empty()) {
    learner_options.candidates.clear();
    for (const std::string& name : candidates) learner_options.candidates.push_back(value_named(learner_names(), name, "--candidates"));
  }

  std::printf("%s\n", bench::machine_line(bench::measure_machine()).c_str());
  const std::vector<TuningTarget> targets = load_targets(options.files);
  std::unique_ptr<CostModel> layout_model, tile_model;
  if (!options.model_layout.empty()) layout_model = std::make_unique<CostModel>(CostModel::load(options.model_layout));
  if (!options.model_tile.empty()) tile_model = std::make_unique<CostModel>(CostModel::load(options.model_tile));
  std::ostringstream table;
  table << "| program (configs) | budget | strategy | tau, unmeasured | seeds' range | ridge, same measurements | xgboost, same "
           "measurements | tau - xgboost's | top-5 slowdown | best / file's best | vs random's | fit s/round |\n";
  table << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const TuningTarget& target : targets) {
    const CostModel* model = target.graph.kind == GraphKind::Tile ? tile_model.get() : layout_model.get();
    for (const int budget : options.budgets) {
      if (budget + 2 > target.graph.config_count) continue;
      std::map<std::string, std::vector<Run>> runs;
      for (const std::string& name : options.strategies) {
        const TuneStrategy strategy = value_named(tune_strategy_names(), name, "--strategies");
        if ((strategy == TuneStrategy::ZeroShot || (strategy == TuneStrategy::Online && learner_options.init == GnnInit::Model)) &&
            model == nullptr)
          continue;
        for (int seed = 1; seed <= options.seeds; ++seed)
          runs[name].push_back(run_one(target, strategy, budget, static_cast<uint64_t>(seed), model, options));
      }
      const auto med = [&](const std::string& name, double Run::*field) {
        std::vector<double> values;
        for (const Run& run : runs[name]) values.push_back(run.*field);
        return median(values);
      };
      for (const auto& [name, list] : runs) {
        const double tau = med(name, &Run::tau), ridge = med(name, &Run::ridge_tau), xgboost = med(name, &Run::xgboost_tau),
                     best = med(name, &Run::best);
        double low = INFINITY, high = -INFINITY;  // the seeds' spread: at these budgets it is wide (docs/tuning.md)
        for (const Run& run : list) {
          if (std::isfinite(run.tau)) low = std::min(low, run.tau), high = std::max(high, run.tau);
        }
        const double random_best = runs.count("random") ? med("random", &Run::best) : NAN;
        double learn = 0;
        int rounds = 0;
        for (const Run& run : list) learn += run.learn_seconds, rounds += run.rounds;
        const auto cell = [](double value, const char* format) {
          if (std::isnan(value)) return std::string("-");
          char text[32];
          std::snprintf(text, sizeof text, format, value);
          return std::string(text);
        };
        const std::string line = "| " + target.path + " (" + std::to_string(target.graph.config_count) + ") | " + std::to_string(budget) +
                                 " | " + name + " | " + cell(tau, "%.3f") + " | " +
                                 (std::isfinite(low) ? cell(low, "%.2f") + " to " + cell(high, "%.2f") : "-") + " | " +
                                 cell(ridge, "%.3f") + " | " + cell(xgboost, "%.3f") + " | " + cell(tau - xgboost, "%+.3f") + " | " +
                                 cell(med(name, &Run::slowdown), "%.4f") + " | " + cell(best, "%.4f") + " | " +
                                 cell(best / random_best, "%.4f") + " | " + cell(rounds ? learn / rounds : NAN, "%.2f") + " |\n";
        table << line;
        std::printf("%s", line.c_str());
        std::fflush(stdout);
      }
    }
  }
  if (!options.markdown.empty()) std::ofstream(options.markdown) << table.str();
  return 0;
}
