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

// The node_feat columns by what they hold, for the code that writes them (the HLO importer, the
// generator's builder) and reads them. Blocks of 6 (or 4) columns start at the named column.
namespace node_column {
constexpr int kIsRoot = 0, kElementTypes = kElementTypeFirstColumn, kShapeDims = 21, kShapeSum = 27, kShapeProduct = 28;
constexpr int kTupleSize = 29, kParameterNumber = 30, kDimensions = 31;
constexpr int kWindowSize = 37, kWindowStride = 45, kPaddingLow = 53, kPaddingHigh = 61, kWindowDilation = 69, kBaseDilation = 77;
constexpr int kReversal = 85, kReversalTrue = 91, kReversalFalse = 92;
// Convolution dimension numbers, 93..106: input batch, feature, spatial (4); kernel input and
// output feature, spatial (4); output batch, feature.
constexpr int kConvolutionDims = 93, kInputBatch = 93, kInputFeature = 94, kInputSpatial = 95, kKernelInputFeature = 99;
constexpr int kKernelOutputFeature = 100, kKernelSpatial = 101, kOutputBatch = 105, kOutputFeature = 106;
constexpr int kFeatureGroups = 107, kBatchGroups = 108;
constexpr int kSliceStart = 109, kSliceStride = 113, kSliceLimit = 117, kDynamicSliceSizes = 121;
constexpr int kPadLow = 125, kPadHigh = 129, kIsStable = 133, kMinorToMajor = kLayoutMinorToMajorFirstColumn;
}  // namespace node_column

// Name of column `index` ("shape_dimensions_0", "layout_minor_to_major_5", ...); "" if out of range.
const std::string& node_feature_name(int index);
const std::string& tile_config_feature_name(int index);
const std::string& layout_config_feature_name(int index);

}  // namespace graphcost
