// A collection's files in the official tree, found and loaded: what training, evaluate-model,
// calibrate and prepare read. Collections and splits are comma lists ("layout:xla:random,
// layout:xla:default"; "train,valid"), matched against each file's place in the tree
// (data/dataset_path.h).
#pragma once

#include <string>
#include <vector>

#include "data/tpu_graph.h"

namespace graphcost {

// The .npz files of `collection` and `split` below `data`, in the order find_npz_files lists them.
std::vector<std::string> collection_files(const std::string& data, const std::string& collection, const std::string& split);
// The same files loaded and checked (load_tpu_graph; InputError on the first bad one).
std::vector<TpuGraph> load_collection(const std::string& data, const std::string& collection, const std::string& split);

}  // namespace graphcost
