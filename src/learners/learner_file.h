// Learner files: a fitted learner written by `tune --model-out`, for `rank` and `predict` on the
// same program. The GNN's is an ordinary model file (.npz); the others' are JSON:
//   {"graphcost_learner": 1, "learner": "xgboost" | "ridge" | "weighed", "kind": "layout" | "tile",
//    "nodes": N, "configurable": K, ...the learner's own fields}
// A learner knows one program's configs (its columns are that program's configurable nodes), so
// reading one for another graph is refused by name (kind, nodes, configurable nodes).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"
#include "learners/learner.h"

namespace graphcost {

nlohmann::json learner_file_header(LearnerKind kind, const TpuGraph& graph);
// Written atomically; never over one of `inputs`.
void write_learner_file(const std::string& path, const nlohmann::json& json, const std::vector<std::string>& inputs);
// True when `path` starts as a learner file does ('{'), not as a model file (a zip).
bool is_learner_file(const std::string& path);
// The fitted learner in `path`, for `graph` (which it must outlive); InputError naming the file
// and the field when it is not one or was fitted on another program.
std::unique_ptr<Learner> load_learner_file(const std::string& path, const TpuGraph& graph);

}  // namespace graphcost
