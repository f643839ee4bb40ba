// The training loop (fit_model and train_model run it): graphs gathered once with the source of
// their configs (in memory, or a config store read a sample at a time) and the forward pass
// (whole graphs, or Graph Segment Training's segments) chosen before the loop; then steps, the
// data-parallel gradient mean (train/data_parallel.h), epochs with validation, checkpoints
// (train/checkpoint.h), and at the end GST's head finetuning and the runtime calibration.
#pragma once

#include <vector>

#include "train/trainer.h"

namespace graphcost {

// fit_model over graphs whose training shards are given: train_model shards by file (balanced by
// size), fit_model by position. Every rank runs it (MPI); rank 0 validates and writes checkpoints.
TrainResult fit_sharded(CostModel& model, const std::vector<GraphConfigs>& train, const std::vector<int>& train_shards,
                        const std::vector<GraphConfigs>& valid, const TrainOptions& options, const TrainProgress& progress);

}  // namespace graphcost
