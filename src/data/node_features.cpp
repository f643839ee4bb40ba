#include "data/node_features.h"

#include <vector>

namespace graphcost {
namespace {

void add_dims(std::vector<std::string>& names, const std::string& prefix, int dims, bool sum_product) {
  for (int i = 0; i < dims; ++i) names.push_back(prefix + "_" + std::to_string(i));
  if (sum_product) {
    names.push_back(prefix + "_sum");
    names.push_back(prefix + "_product");
  }
}

std::vector<std::string> build_node_feature_names() {
  std::vector<std::string> names = {"is_root", "element_size_in_bits"};
  for (const char* type : {"invalid", "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bf16", "c64",
                           "c128", "tuple", "opaque", "token"}) {
    names.push_back(std::string("shape_element_type_is_") + type);
  }
  add_dims(names, "shape_dimensions", 6, true);
  names.push_back("shape_tuple_shapes_size");
  names.push_back("parameter_number");
  add_dims(names, "dimensions", 6, false);
  for (const char* window :
       {"window_size", "window_stride", "window_padding_low", "window_padding_high", "window_dilation", "window_base_dilation"}) {
    add_dims(names, window, 6, true);
  }
  add_dims(names, "window_reversal", 6, false);
  names.push_back("window_reversal_true_count");
  names.push_back("window_reversal_false_count");
  const std::string conv = "convolution_dim_numbers_";
  names.push_back(conv + "input_batch_dim");
  names.push_back(conv + "input_feature_dim");
  add_dims(names, conv + "input_spatial_dims", 4, false);
  names.push_back(conv + "kernel_input_feature_dim");
  names.push_back(conv + "kernel_output_feature_dim");
  add_dims(names, conv + "kernel_spatial_dims", 4, false);
  names.push_back(conv + "output_batch_dim");
  names.push_back(conv + "output_feature_dim");
  names.push_back("feature_group_count");
  names.push_back("batch_group_count");
  for (const char* block : {"slice_dims_start", "slice_dims_stride", "slice_dims_limit", "dynamic_slice_sizes",
                            "padding_config_edge_padding_low", "padding_config_edge_padding_high"}) {
    add_dims(names, block, 2, true);
  }
  names.push_back("is_stable");
  add_dims(names, "layout_minor_to_major", 6, false);
  return names;
}

std::vector<std::string> build_tile_config_names() {
  std::vector<std::string> names;
  for (const char* block : {"kernel_bounds", "output_bounds", "input_bounds"}) add_dims(names, block, 6, true);
  return names;
}

std::vector<std::string> build_layout_config_names() {
  std::vector<std::string> names;
  for (const char* block : {"output_layout", "input_layout", "kernel_layout"}) add_dims(names, block, 6, false);
  return names;
}

const std::string& lookup(const std::vector<std::string>& names, int index) {
  static const std::string empty;
  return index >= 0 && index < static_cast<int>(names.size()) ? names[index] : empty;
}

}  // namespace

const std::string& node_feature_name(int index) {
  static const std::vector<std::string> names = build_node_feature_names();
  return lookup(names, index);
}
const std::string& tile_config_feature_name(int index) {
  static const std::vector<std::string> names = build_tile_config_names();
  return lookup(names, index);
}
const std::string& layout_config_feature_name(int index) {
  static const std::vector<std::string> names = build_layout_config_names();
  return lookup(names, index);
}

}  // namespace graphcost
