// One layout block of node_config_feat drawn as the dataset's "random" collections draw them (the
// generator's random configs and `graphcost import --configs`): a prefix (length 2..rank, at most 6)
// of a random permutation of the tensor's dims, -1 padded; 4% of blocks are left to the compiler
// (all -1). Draws use mt19937_64's output directly, so a seed gives the same block everywhere.
#pragma once

#include <cstdint>
#include <random>

namespace graphcost {

// Writes 6 values to `block`; `rank` in 0..6.
void draw_random_layout_block(int8_t* block, int rank, std::mt19937_64& random);

}  // namespace graphcost
