// A kernel's parameter space (spaces/parameter_space.h) as a tuning target. The tuner and its
// learners rank a target's configs through its graph's config columns; a space reaches them as a
// one-node tile graph whose config columns are its parameters' values (a value that is not a
// number by its index), so XGBoost and ridge learn from the parameters exactly as from a tile
// kernel's tile sizes. The GNN is refused: a space has no graph to run it on. At most 24
// parameters (a tile config's 24 columns), one fewer with a warm start (its prior is a column).
//
// Warm start (`tune --warm-start OTHER`): XGBoost fitted to every ok measurement of another space
// with the same parameters (the same kernel measured on another GPU) predicts this space's
// configs; the first batch is its best, and its prediction is one more config column, so the
// learners here can lean on it as far as this GPU's measurements support.
#pragma once

#include <string>
#include <vector>

#include "data/tpu_graph.h"
#include "learners/boosted_trees.h"
#include "spaces/parameter_space.h"

namespace graphcost {

// The space's configs as a one-node tile graph (runtimes: the ok configs' seconds; hidden when the
// space is unmeasured), with `prior`, when given, as the column after the parameters.
TpuGraph space_as_graph(const ParameterSpace& space, const std::vector<float>* prior = nullptr);

// XGBoost fitted on `other`'s ok configs (log seconds) and evaluated on `here`'s: one cost per config
// of `here` (lower = predicted faster). InputError naming `other` when its parameters are not
// `here`'s (by name) or it has fewer than 2 ok configs.
std::vector<float> warm_start_costs(const ParameterSpace& here, const ParameterSpace& other, const BoostedTreesOptions& options);

}  // namespace graphcost
