// What a training run will hold at its peak, estimated before anything is loaded, so that
// `train --memory-budget` can refuse up front (and propose the configs per step that fit).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/trainer.h"

namespace graphcost {

// What training `files` is expected to hold at its peak (bytes), from the files' zip directories
// (nothing is inflated): the graphs' structure, their configs when no cache is used (and the
// largest file's float32 copy while it loads), one step on the largest graph, and the program.
struct MemoryEstimate {
  uint64_t structure = 0, configs = 0, step = 0, validation = 0, program = 0;
  size_t graphs = 0;
  uint64_t total() const { return structure + configs + step + validation + program; }
  std::string text() const;  // "structure 1.1 GiB (198 graphs) + configs 0 bytes + a step 120 MiB + ..."
};
MemoryEstimate estimate_training_memory(const std::vector<std::string>& files, const TrainOptions& options);

// Refuses up front (InputError naming the parts, and the configs per step that would fit) a run on
// `held` files whose estimate exceeds options.memory_budget, unless options.fit_configs_per_step
// and fewer configs per step fit; sizes validation's state tables (model/layout_inference.h) to
// what the budget leaves and bounds input files by the budget. Returns the configs per step to use.
int enforce_memory_budget(const TrainOptions& options, const std::vector<std::string>& held, bool use_cache);

// The rows a training step of `file` runs on per config: the model's view of the graph (layout
// graphs pruned to the configurable nodes and everything within `hops` edges of one), from its
// structure read through the one schema reader (tpu_graph_from_npz, node_config_feat left in the
// file); 0 when the file cannot be read (loading it reports why).
uint64_t step_rows(const std::string& file, int hops);

}  // namespace graphcost
