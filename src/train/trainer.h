// Trainer: fits a CostModel on the labelled files of one collection. Each step takes one training
// graph and a random sample of its configs (duplicates of a config removed first), scores them,
// and applies the ranking loss; each epoch ends with validation (mean Kendall tau-b for layout,
// mean tile score for tile), a progress report, and a checkpoint of the model so far.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/cost_model.h"

namespace graphcost {

struct TrainOptions {
  std::string data;                  // npz tree
  std::string collection;            // e.g. layout:xla:random
  std::string train_split = "train";
  std::string valid_split = "valid";
  std::string out;                   // model file (also the per-epoch checkpoint)
  int epochs = 10;
  int steps_per_epoch = 100;
  int configs_per_step = 16;
  std::string loss = "listmle";      // listmle | hinge | mse
  float learning_rate = 2e-3f;
  ModelConfig model;
};

struct EpochReport {
  int epoch = 0;
  double train_loss = 0;
  double valid_metric = 0;  // NaN without validation graphs
  double seconds = 0;
};

// Called after every epoch (and with epoch 0 before training); return false to stop early.
using TrainProgress = std::function<bool(const EpochReport& report, int epochs)>;

struct TrainResult {
  std::vector<EpochReport> epochs;
  size_t train_graphs = 0, valid_graphs = 0;
};

TrainResult train_model(const TrainOptions& options, const TrainProgress& progress = nullptr);

// Mean Kendall tau-b (layout) or mean tile score (tile) of `model` over `graphs` (labelled).
double evaluate_model(CostModel& model, const std::vector<const TpuGraph*>& graphs);

// Graphs of `collection` and `split` (comma list) below `data`, loaded and checked.
std::vector<TpuGraph> load_collection(const std::string& data, const std::string& collection, const std::string& split);

}  // namespace graphcost
