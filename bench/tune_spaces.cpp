// bench/tune_spaces: tuning strategies replayed on brute-forced parameter spaces (Kernel Tuner's T4
// files: every config of a kernel measured on one GPU). Per space, strategy and seed one run to the
// largest budget, read at each budget: the best config found over the space's best, and the
// learner's Kendall tau-b on the ok configs not measured yet. Beside them the field's references:
// random search, Kernel Tuner's genetic algorithm, and XGBoost fitted to random measurements (the
// tau a learner makes of a random sample). With --warm-start, each space also started from every
// other space's measurements (the same kernel on another GPU). Prints the machine and medians over
// seeds; --markdown writes docs/tuning.md's table. Run: bash bench/tune_spaces.sh.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>

#include "learners/learner.h"
#include "machine.h"
#include "metrics/kendall_tau.h"
#include "tune/space_target.h"
#include "tune/tuner.h"

using namespace graphcost;

namespace {

struct Options {
  std::vector<std::string> files, strategies = {"online", "random", "genetic"};
  std::vector<int> budgets = {20, 50, 100};
  int seeds = 5;
  bool warm_start = false;
  std::string markdown;
  TuneOptions tune;
};

struct Reading {
  double best = NAN, tau = NAN;
};

double median(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string label_of(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  return name.substr(0, name.find('_'));
}

// Tau of XGBoost fitted to the measurements' ok configs, on the ok configs not measured.
double xgboost_tau(const TuningTarget& target, const Tuner& tuner, const std::vector<double>& truth) {
  Observations observed;
  std::vector<bool> seen(truth.size(), false);
  for (const Measurement& m : tuner.measurements()) {
    seen[static_cast<size_t>(m.config)] = true;
    if (m.ok()) observed.configs.push_back(m.config), observed.seconds.push_back(m.seconds);
  }
  if (observed.configs.size() < 2) return NAN;
  LearnerOptions reference;
  reference.kind = LearnerKind::Xgboost;
  std::unique_ptr<Learner> learner = make_learner(target.graph, nullptr, reference);
  learner->fit(observed);
  std::vector<int32_t> rest;
  std::vector<double> rest_truth;
  for (size_t c = 0; c < truth.size(); ++c) {
    if (!seen[c] && std::isfinite(truth[c])) rest.push_back(static_cast<int32_t>(c)), rest_truth.push_back(truth[c]);
  }
  const std::vector<float> cost = learner->predict(rest);
  const std::vector<double> predicted(cost.begin(), cost.end());
  return kendall_tau_b(predicted.data(), rest_truth.data(), predicted.size());
}

// One run to the largest budget; a reading at each budget (the round that reaches it).
std::map<int, Reading> run(const TuningTarget& target, TuneStrategy strategy, uint64_t seed, const Options& options,
                           bool xgboost_reference) {
  TuneOptions tune = options.tune;
  tune.strategy = strategy;
  tune.budget = *std::max_element(options.budgets.begin(), options.budgets.end());
  tune.seed = seed;
  const Oracle oracle = replay_oracle(target);
  Tuner tuner(target, oracle, nullptr, tune);
  std::map<int, Reading> readings;
  while (!tuner.done()) {
    const RoundReport report = tuner.run_round({});
    for (const int budget : options.budgets) {
      if (report.measured == budget) {
        readings[budget] = {report.best_over_pool_best,
                            xgboost_reference ? xgboost_tau(target, tuner, oracle.truth) : report.unmeasured_tau};
      }
    }
  }
  return readings;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench/tune_spaces: tuning strategies on brute-forced parameter spaces (docs/tuning.md)"};
  Options options;
  app.add_option("files", options.files, "T4 files (or Kernel Tuner caches) of the same kernel on different GPUs")->required();
  app.add_option("--strategies", options.strategies)->delimiter(',');
  app.add_option("--budgets", options.budgets)->delimiter(',');
  app.add_option("--seeds", options.seeds);
  app.add_option("--per-round", options.tune.per_round);
  app.add_option("--explore", options.tune.explore);
  app.add_flag("--warm-start", options.warm_start, "also start each space from every other one");
  app.add_option("--markdown", options.markdown, "write the tables here");
  CLI11_PARSE(app, argc, argv);
  std::sort(options.budgets.begin(), options.budgets.end());
  std::printf("%s\n", bench::machine_line(bench::measure_machine()).c_str());

  std::vector<std::shared_ptr<const ParameterSpace>> spaces;
  for (const std::string& file : options.files) spaces.push_back(std::make_shared<ParameterSpace>(load_parameter_space(file)));
  const auto target_of = [&](size_t i, const std::vector<float>* prior) {
    TuningTarget target;
    target.path = label_of(options.files[i]);
    target.space = spaces[i];
    if (prior != nullptr) target.prior = *prior;
    target.graph = space_as_graph(*spaces[i], prior);
    return target;
  };
  std::ostringstream table;
  std::string header = "| GPU | strategy |";
  for (const int b : options.budgets) header += " best / space's best @" + std::to_string(b) + " |";
  for (const int b : options.budgets) header += " tau @" + std::to_string(b) + " |";
  std::string rule = "|";
  for (long k = 1; k < std::count(header.begin(), header.end(), '|'); ++k) rule += "---|";
  table << header << "\n" << rule << "\n";
  std::printf("%s\n", header.c_str());
  const auto emit = [&](const std::string& gpu, const std::string& name, const std::vector<std::map<int, Reading>>& runs) {
    std::string line = "| " + gpu + " | " + name + " |";
    char cell[32];
    for (const bool best : {true, false}) {
      for (const int b : options.budgets) {
        std::vector<double> values;
        for (const auto& r : runs) values.push_back(r.count(b) ? (best ? r.at(b).best : r.at(b).tau) : NAN);
        const double m = median(values);
        std::snprintf(cell, sizeof cell, best ? " %.3fx |" : " %.3f |", m);
        line += std::isnan(m) ? std::string(" - |") : std::string(cell);
      }
    }
    table << line << "\n";
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  for (size_t i = 0; i < spaces.size(); ++i) {
    const TuningTarget target = target_of(i, nullptr);
    for (const std::string& name : options.strategies) {
      std::vector<std::map<int, Reading>> runs;
      for (int seed = 1; seed <= options.seeds; ++seed)
        runs.push_back(run(target, value_named(tune_strategy_names(), name, "--strategies"), static_cast<uint64_t>(seed), options, false));
      emit(target.path, name, runs);
    }
    std::vector<std::map<int, Reading>> reference;  // XGBoost on random measurements: the issue's reference tau
    for (int seed = 1; seed <= options.seeds; ++seed)
      reference.push_back(run(target, TuneStrategy::Random, static_cast<uint64_t>(seed), options, true));
    emit(target.path, "xgboost on random", reference);
    if (!options.warm_start) continue;
    for (size_t j = 0; j < spaces.size(); ++j) {
      if (j == i) continue;
      BoostedTreesOptions trees;
      const std::vector<float> prior = warm_start_costs(*spaces[i], *spaces[j], trees);
      const TuningTarget warm = target_of(i, &prior);
      std::vector<std::map<int, Reading>> runs;
      for (int seed = 1; seed <= options.seeds; ++seed)
        runs.push_back(run(warm, TuneStrategy::Online, static_cast<uint64_t>(seed), options, false));
      emit(target.path, "online, warm from " + label_of(options.files[j]), runs);
    }
  }
  if (!options.markdown.empty()) std::ofstream(options.markdown) << table.str();
  return 0;
}
