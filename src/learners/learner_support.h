// What the learners share: runtimes as the dataset's files hold them, costs on one scale, and
// Kendall's tau of a learner's costs against measurements (how auto and weighed judge learners).
#pragma once

#include <cstdint>
#include <vector>

#include "data/tpu_graph.h"

namespace graphcost {

// A runtime in whole nanoseconds (at least 1; at most 9e9 s).
int64_t runtime_ns(double seconds);
// `graph` with every runtime 0 and, for tile, every normalizer 1 (measurements are runtimes, not
// runtimes over a default config's), labelled: the graph a fit's measured runtimes are written into.
TpuGraph unlabelled_copy(const TpuGraph& graph);
// `costs` standardised (mean 0, sd 1), times `weight`, added to `sum` (same size).
void add_standardised(const std::vector<float>& costs, double weight, std::vector<float>& sum);
// Kendall tau-b of costs against runtimes (NaN with fewer than 2).
double tau_of(const std::vector<float>& costs, const std::vector<double>& seconds);

}  // namespace graphcost
