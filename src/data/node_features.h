// Column names of TpuGraphs feature matrices, as the dataset's README defines them.
//   node_feat        (n, 140): per-node HLO attributes (shape, window, convolution dims, layout)
//   config_feat      (c, 24):  tile configs: kernel/output/input bounds (6 dims, sum, product each)
//   node_config_feat (c, nc, 18): layout configs: output/input/kernel minor-to-major orders
#pragma once

#include <string>

namespace graphcost {

constexpr int kNodeFeatureCount = 140;
constexpr int kTileConfigFeatureCount = 24;
constexpr int kLayoutConfigFeatureCount = 18;
// Values a layout config column takes: -1 (unset) and dimension indices 0..5.
constexpr int kLayoutValueCount = 7;
constexpr int kLayoutValueMin = -1, kLayoutValueMax = 5;
// Tile config_feat column of the product of the kernel bounds (the tile's size).
constexpr int kTileKernelBoundsProductColumn = 7;

// First column of the element-type one-hot block (2..20) and of layout_minor_to_major (134..139).
constexpr int kElementTypeFirstColumn = 2;
constexpr int kLayoutMinorToMajorFirstColumn = 134;

// Name of column `index` ("shape_dimensions_0", "layout_minor_to_major_5", ...); "" if out of range.
const std::string& node_feature_name(int index);
const std::string& tile_config_feature_name(int index);
const std::string& layout_config_feature_name(int index);

}  // namespace graphcost
