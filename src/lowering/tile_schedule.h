// A tile config as a schedule (docs/lowering.md, "Tile configs"): TpuGraphs' tile configs give the
// kernel's output tile sizes (one per output dimension: config_feat's first dims), and so does
// this: the first output is computed tile by tile, its loops in the output buffer's order (C order:
// the last dimension innermost, vectorized when its tile holds a vector), and every reduction it
// reads through inlined Funcs alone (LoweredComputation::per_tile: the kernel's dot or reduce) is
// computed per tile, its reduction loop outside its tile's loops. A tile of the whole output is the
// untiled kernel: config 0 of a measured tile file. Only the schedule changes, never the values
// (the reductions keep their order of summation).
#pragma once

#include <cstdint>
#include <vector>

#include "lowering/hlo_to_halide.h"

namespace graphcost {

// Schedules `lowered`'s first output by `tile` (its size per output dimension, each from 1 to the
// dimension). InputError when `tile` does not fit the output's shape.
void schedule_tiles(LoweredComputation& lowered, const std::vector<int64_t>& tile);

}  // namespace graphcost
