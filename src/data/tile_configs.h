// Tile configs of a fused kernel (config_feat, 24 columns): the tile sizes a compiler would
// propose for the kernel's output, and their features as the dataset stores them. Shared by the
// generator (synth/) and `graphcost import --kind tile` (hlo/).
#pragma once

#include <cstdint>
#include <vector>

namespace graphcost {

// Tile sizes for one output dim: powers of two that cut it into at most 16 tiles and are at least
// `alignment` (128 lanes for the minor dim, 8 sublanes for the next), and the whole dim.
std::vector<int64_t> tile_options(int64_t dim, int64_t alignment);

// config_feat of `tile` over output `dims`: kernel bounds (the tile: 6, sum, product), output
// bounds (tiles per dim: 6, sum, product); input bounds (16..23) stay zero, as in the real files.
std::vector<float> tile_config_features(const std::vector<int64_t>& dims, const std::vector<int64_t>& tile);

}  // namespace graphcost
