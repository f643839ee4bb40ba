#include "data/tile_configs.h"

#include <algorithm>

namespace graphcost {

std::vector<int64_t> tile_options(int64_t dim, int64_t alignment) {
  std::vector<int64_t> options;
  const int64_t at_least = dim / 16 + (dim % 16 != 0);  // at most 16 tiles: p * 16 >= dim, without overflow
  for (int64_t p = 1; p < dim; p *= 2) {
    if (p >= at_least && p >= alignment) options.push_back(p);
    if (p > dim / 2) break;  // the next power of two reaches dim (and might not fit 64 bits)
  }
  options.push_back(std::max<int64_t>(dim, 1));  // an empty dim (size 0) still gets a tile of 1
  return options;
}

std::vector<float> tile_config_features(const std::vector<int64_t>& dims, const std::vector<int64_t>& tile) {
  std::vector<float> features(24, 0);
  float tile_sum = 0, tile_product = 1, grid_sum = 0, grid_product = 1;
  for (size_t d = 0; d < dims.size() && d < 6; ++d) {
    const int64_t grid = dims[d] / tile[d] + (dims[d] % tile[d] != 0);  // ceil, without overflow
    features[d] = static_cast<float>(tile[d]);
    features[8 + d] = static_cast<float>(grid);
    tile_sum += static_cast<float>(tile[d]);
    tile_product *= static_cast<float>(tile[d]);
    grid_sum += static_cast<float>(grid);
    grid_product *= static_cast<float>(grid);
  }
  features[6] = tile_sum;
  features[7] = tile_product;
  features[14] = grid_sum;
  features[15] = grid_product;
  return features;  // input bounds (16..23) stay zero, as in the real files
}

}  // namespace graphcost
