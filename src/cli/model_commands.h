// `graphcost train`, `graphcost predict`, `graphcost evaluate-model`, `graphcost calibrate`: the cost model from the
// command line (src/model, src/train).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "train/trainer.h"

namespace graphcost {

struct TrainCommandOptions {
  TrainOptions train;
  std::string memory_budget;  // --memory-budget as given ("4GiB"): run_train_command sets train.memory_budget from it
  bool quiet = false;
  int stop_after_epoch = 0;  // > 0: stop once this epoch's checkpoint is written (resume later)
};
// The `train` subcommand and its options (help shows TrainCommandOptions's defaults).
CLI::App* add_train_command(CLI::App& app, TrainCommandOptions& options);
int run_train_command(const TrainCommandOptions& options);

struct PredictCommandOptions {
  std::vector<std::string> models;  // one per collection (or per kind)
  std::string data, split = "test", out;
  std::string costs_out;  // optional: every config's predicted cost, CSV ID,config,cost (ensembles, checks)
  int batch = 64;
  int threads = 2;  // LayoutInference workers
};
// The `predict` subcommand and its options (help shows PredictCommandOptions's defaults).
CLI::App* add_predict_command(CLI::App& app, PredictCommandOptions& options);
int run_predict_command(const PredictCommandOptions& options);

struct EvaluateCommandOptions {
  std::string model, data, split = "valid";
  std::string collection;  // default: the model's own
};
// The `evaluate-model` subcommand and its options (help shows EvaluateCommandOptions's defaults).
CLI::App* add_evaluate_command(CLI::App& app, EvaluateCommandOptions& options);
int run_evaluate_model_command(const EvaluateCommandOptions& options);

// `graphcost calibrate`: fits the model's RuntimeCalibration (predicted speedups) on labelled
// graphs and writes the model with it (in place unless `out` is given).
struct CalibrateCommandOptions {
  std::string model, data, split = "valid", out;
  std::string collection;  // default: the model's own
};
// The `calibrate` subcommand and its options (help shows CalibrateCommandOptions's defaults).
CLI::App* add_calibrate_command(CLI::App& app, CalibrateCommandOptions& options);
int run_calibrate_command(const CalibrateCommandOptions& options);

}  // namespace graphcost
