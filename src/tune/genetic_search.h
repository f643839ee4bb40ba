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

// Up to `size` configs not `unavailable` (measured or taken): the next generation's children.
// Fewer than two measured configs: none (the caller draws at random).
std::vector<int32_t> genetic_children(const ParameterSpace& space, const std::vector<Measurement>& measured,
                                      const std::vector<bool>& unavailable, size_t size, std::mt19937_64& random);

}  // namespace graphcost
