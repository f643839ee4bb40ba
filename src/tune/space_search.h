// Searching a parameter space's configs by their parameters (tune/space_target.h).
//
// The learned search's batch (online): the learner's best among the configs near the best measured
// ones (neighbourhood_costs: at most kSpaceRadius parameters differing from one of the
// kSpaceIncumbents best), then its best anywhere, then a few at random. Measured on the six shared
// Kernel Tuner spaces (docs/tuning.md), staying near the incumbents found better configs sooner
// than the learner's best anywhere: trees fitted to a few dozen configs rank far regions badly.
//
// The model-free local search the autotuning field compares a learned search against: a genetic
// algorithm over a parameter space's configs, as Kernel Tuner ships it
// (kernel_tuner/strategies/genetic_algorithm.py), one generation a round. Parents are drawn from
// the measured configs ranked by runtime (Kernel Tuner's Beta(1, 2.5) rank draw, failed configs
// last), children take a single-point crossover of their parameter values and a mutation (each
// parameter with chance 1/parameters to another of its values), and a child that is not in the
// space or was measured is repaired to the nearest unmeasured config (fewest parameters differing;
// ties at random), as Kernel Tuner's constraint-aware repair does.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "spaces/parameter_space.h"
#include "tune/oracles.h"

namespace graphcost {

inline constexpr int kSpaceIncumbents = 5;  // the best measured configs a neighbourhood is taken around
inline constexpr int kSpaceRadius = 2;      // parameters a neighbour may differ in

// `costs` where a config is within kSpaceRadius parameters of one of the kSpaceIncumbents best ok
// measurements, +infinity elsewhere (order_by_cost then puts the neighbourhood first).
std::vector<float> neighbourhood_costs(const ParameterSpace& space, const std::vector<Measurement>& measured,
                                       const std::vector<float>& costs);

// Up to `size` configs not `unavailable` (measured or taken): the next generation's children.
// Fewer than two measured configs: none (the caller draws at random).
std::vector<int32_t> genetic_children(const ParameterSpace& space, const std::vector<Measurement>& measured,
                                      const std::vector<bool>& unavailable, size_t size, std::mt19937_64& random);

}  // namespace graphcost
