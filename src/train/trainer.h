// Trainer: fits a CostModel on the labelled files of one collection. Each step takes one training
// graph and a random sample of its configs (duplicates of a config removed first), scores them,
// and applies the ranking loss; each epoch ends with validation (mean Kendall tau-b for layout,
// mean tile score for tile), a progress report, and a checkpoint of the model so far.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/named_values.h"
#include "data/config_store.h"
#include "model/cost_model.h"
#include "train/model_validation.h"
#include "train/runtime_calibration.h"
#include "train/segment_training.h"

namespace graphcost {

// ListMLE (the listwise likelihood of the true order), a pairwise hinge, or MSE on centred log runtimes.
enum class RankingLoss { ListMle, Hinge, GapMargin, Mse };
const NameTable<RankingLoss>& ranking_loss_names();  // "listmle", "hinge", "gap-margin", "mse"

struct TrainOptions {
  std::string data;        // npz tree
  std::string collection;  // e.g. layout:xla:random, or a comma list of one kind's collections
  std::string train_split = "train";
  std::string valid_split = "valid";
  std::string out;      // model file (also the per-epoch checkpoint)
  bool resume = false;  // continue from the checkpoint in `out` (model, Adam state,
                        // sampler, epoch); its architecture wins over `model`
  std::string init;     // start from this model file's weights, architecture and feature statistics
                        // (a warm start: a fresh optimizer, epoch 0); its kind must be the collection's
  int epochs = 10;
  int steps_per_epoch = 100;
  int configs_per_step = 16;
  // Graphs (shards) per step; 0: one per process. With N processes (mpirun -np N; must divide it)
  // each process holds and samples only its shards, and the step's gradient is the mean over all
  // of them, so `-np 2` and one process with 2 graphs per step train the same model.
  int graphs_per_step = 0;
  // With several graphs per step, every shard draws its graph at the same size rank among its own
  // graphs (a rank drawn per step from the seed), so that the step, which waits for its slowest
  // shard, waits little. false: each shard draws uniformly on its own. Either way each shard's
  // graphs are drawn equally often; one graph per step is always uniform.
  bool balance_graph_sizes = true;
  RankingLoss loss = RankingLoss::ListMle;
  float learning_rate = 2e-3f;
  ModelConfig model;
  SegmentOptions segments;  // segment_nodes > 0: Graph Segment Training (train/segment_training.h)
  // Config stores (data/config_store.h): each layout file is prepared into `cache` on first use
  // (again when it changed) and training reads a step's configs from there, never holding a file's
  // configs. Empty: files are loaded whole. Tile files are always loaded whole (24 floats a config).
  std::string cache;
  // Validation, and the runtime calibration after the last epoch, on at most this many configs per
  // graph: a seeded sample, the same every epoch. 0: all configs, or 1,000 (the size of the official
  // evaluation lists) when a cache is used.
  int valid_configs = 0;
  // A bound on the process's memory (bytes; 0: none). Training refuses to start, naming the parts,
  // when its estimate of the graphs' structure, a step and the program exceeds it; files are then
  // read with at most this much inflated at once.
  uint64_t memory_budget = 0;
  // With a memory budget: lower configs_per_step to the most whose step fits instead of refusing
  // (TrainResult::configs_per_step says what was used).
  bool fit_configs_per_step = false;
  // Called as each file is prepared into the cache (or found current there).
  std::function<void(size_t done, size_t total, const std::string& file, int64_t configs, int64_t distinct, bool reused)> on_prepare;

  // The architecture fields (of `model`) the caller set: "hidden", "layers", "hops", "aggregation",
  // "relative_configs", "cross_config_attention". A resumed run continues the checkpoint's
  // architecture; one of these set to another value than the checkpoint's is an InputError.
  std::vector<std::string> architecture_given;
  // false: an existing `out` is refused unless resuming (Python's default; the CLI rewrites it).
  bool overwrite = true;

  // Every option's range and the combinations that cannot be, checked once here for the CLI and
  // Python alike: InputError naming the option by its field name ("steps_per_epoch").
  void check() const;
};

// Balanced draws: the size rank in [0, 1) at which every shard draws its graph in global step
// `step` (0-based, over all epochs) of a run seeded `seed`. Uniform, and a function of the two alone
// (splitmix64), so every rank agrees without talking and a resumed run needs no saved state.
double step_size_rank(uint64_t seed, int step);

struct EpochReport {
  int epoch = 0;
  double train_loss = 0;
  double valid_metric = 0;  // NaN without validation graphs
  double seconds = 0;
  double step_seconds = 0;  // the training steps alone (seconds includes validation)
  // Several graphs per step: the mean over the epoch's steps of the largest view (rows) among the
  // step's graphs over their mean. 1 means every shard did the same work; a step waits for its
  // slowest shard. 0 with one graph per step.
  double step_imbalance = 0;
  bool head_finetuning = false;  // GST's head finetuning after the last epoch
};

// Called after every epoch (and with epoch 0 before training); return false to stop early.
using TrainProgress = std::function<bool(const EpochReport& report, int epochs)>;

struct TrainResult {
  std::vector<EpochReport> epochs;
  size_t train_graphs = 0, valid_graphs = 0;
  // In-memory training graphs: the distinct labelled configs the steps draw from, over all graphs.
  size_t train_configs = 0;
  // Graph Segment Training only: segments over all training graphs, their halo overhead
  // (rows per pass over every segment / view rows, mean over graphs), cut edges, table use.
  size_t segments = 0;
  double halo_ratio = 0;
  int64_t cut_edges = 0;
  SegmentCounters segment_counters;
  RuntimeCalibration calibration;  // fitted after the last epoch (not when stopped early)
  int configs_per_step = 0;        // what the steps drew: options' own, or lower to fit the memory budget
};

// Loads the collection's train and valid splits, fits feature statistics, builds a model from
// options.model and fits it (fit_model), saving it to options.out.
TrainResult train_model(const TrainOptions& options, const TrainProgress& progress = nullptr);

// Fits `model` on `train` (graphs with fewer than 2 distinct usable configs are skipped), reporting
// `valid` after every epoch; uses options' epochs, steps, configs_per_step, graphs_per_step (graph
// i in shard i % graphs_per_step), loss, learning rate, model.seed (sampling) and out
// (checkpoint; empty: none).
TrainResult fit_model(CostModel& model, const std::vector<GraphConfigs>& train, const std::vector<GraphConfigs>& valid,
                      const TrainOptions& options, const TrainProgress& progress = nullptr);

// options.graphs_per_step, or the number of processes; InputError when processes do not divide it.
int training_shards(const TrainOptions& options);
// How many configs per graph validation and calibration use: options.valid_configs, or all (0),
// or 1,000 when a config store is used.
int validation_limit(const TrainOptions& options);

}  // namespace graphcost
