// Training checkpoints: the model file plus the training state, so `train --resume` continues
// exactly. Layout of the extra npz members:
//   train_state_json  u1: {"epoch", "adam_steps", "sampler" (one shard) | "shards" + "balanced" +
//                         "samplers": {"<shard>": mt19937_64 state text}}
//   train_state/m/<parameter>, train_state/v/<parameter>  f4: Adam's moments
#pragma once

#include <map>
#include <random>
#include <string>

#include "model/cost_model.h"
#include "nn/optimizer.h"

namespace graphcost {

// Writes `model` to `path` with the training state (atomically, as every model file).
void save_checkpoint(CostModel& model, nn::Adam& adam, int epoch, const std::map<int, std::string>& samplers, int shards, bool balanced,
                     const std::string& path);

struct RestoredState {
  int epoch = 0;
  bool samplers_restored = false;  // false: the checkpoint had another shard count or other draws
};

// Restores Adam and the samplers of `shards` (shard -> generator) from checkpoint `path`. A
// checkpoint of another shard count (or other draws: balanced or not) restores Adam and the epoch
// only. InputError naming the file and member when the state is missing or malformed.
RestoredState restore_checkpoint(CostModel& model, nn::Adam& adam, std::map<int, std::mt19937_64>& shards, int shard_count, bool balanced,
                                 const std::string& path);

}  // namespace graphcost
