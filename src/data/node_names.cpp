#include "data/node_names.h"

#include "common/input_error.h"
#include "common/internal_error.h"

namespace graphcost {
namespace {

std::vector<std::string> split_names(const NpyArray& array, const std::string& source, const std::string& key) {
  if (array.rank() != 1 || array.dtype() != DType::UInt8) {
    throw InputError(source, key, "a 1-D uint8 array (UTF-8 names joined by '\\n')",
                     std::string(dtype_name(array.dtype())) + " of shape " + array.shape_text());
  }
  std::vector<std::string> names(1);
  const uint8_t* bytes = array.data();
  for (size_t i = 0; i < array.byte_size(); ++i) {
    if (bytes[i] == '\n') {
      names.emplace_back();
    } else {
      names.back().push_back(static_cast<char>(bytes[i]));
    }
  }
  // A file written elsewhere may hold bytes that are not UTF-8 or control bytes: shown as \xNN.
  for (std::string& name : names) {
    if (printable(name).size() != name.size()) name = printable(name);
  }
  return names;
}

NpyArray join_names(const std::vector<std::string>& names) {
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < names.size(); ++i) {
    check_invariant(names[i].find('\n') == std::string::npos, "a node name holds no newline");
    if (i > 0) bytes.push_back('\n');
    bytes.insert(bytes.end(), names[i].begin(), names[i].end());
  }
  return NpyArray::from_values<uint8_t>({static_cast<int64_t>(bytes.size())}, bytes);
}

}  // namespace

const std::string& NodeNames::computation_of(int32_t node) const {
  static const std::string none;
  if (node < 0 || static_cast<size_t>(node) >= computation.size()) return none;
  return computations[static_cast<size_t>(computation[static_cast<size_t>(node)])];
}

const std::vector<std::string>& node_name_keys() {
  static const std::vector<std::string> keys = {"node_names", "node_op_names", "node_computation", "computation_names"};
  return keys;
}

NodeNames read_node_names(const NpzFile& npz, const std::string& source, int64_t node_count) {
  NodeNames names;
  int present = 0;
  for (const std::string& key : node_name_keys()) present += npz.find(key) != nullptr ? 1 : 0;
  if (present == 0) return names;
  for (const std::string& key : node_name_keys()) {
    if (npz.find(key) == nullptr) throw InputError(source, "key '" + key + "'", "present beside the other node name keys", "missing");
  }
  auto count_check = [&](const std::string& key, size_t count, int64_t expected) {
    if (static_cast<int64_t>(count) != expected) {
      throw InputError(source, key, std::to_string(expected) + " names (one per node)", std::to_string(count));
    }
  };
  names.instructions = split_names(*npz.find("node_names"), source, "node_names");
  count_check("node_names", names.instructions.size(), node_count);
  names.op_names = split_names(*npz.find("node_op_names"), source, "node_op_names");
  count_check("node_op_names", names.op_names.size(), node_count);
  names.computations = split_names(*npz.find("computation_names"), source, "computation_names");
  const NpyArray& computation = *npz.find("node_computation");
  if (computation.rank() != 1 || computation.shape()[0] != node_count) {
    throw InputError(source, "node_computation", "shape (" + std::to_string(node_count) + ",)", "shape " + computation.shape_text());
  }
  names.computation = computation.to_vector<int32_t>(source, "node_computation");
  for (size_t i = 0; i < names.computation.size(); ++i) {
    const int32_t index = names.computation[i];
    if (index < 0 || static_cast<size_t>(index) >= names.computations.size()) {
      throw InputError(source, "node_computation[" + std::to_string(i) + "]",
                       "an index below the " + std::to_string(names.computations.size()) + " computation names", std::to_string(index));
    }
  }
  return names;
}

std::vector<std::pair<std::string, NpyArray>> node_name_arrays(const NodeNames& names) {
  std::vector<std::pair<std::string, NpyArray>> arrays;
  if (names.empty()) return arrays;
  arrays.emplace_back("node_names", join_names(names.instructions));
  arrays.emplace_back("node_op_names", join_names(names.op_names));
  arrays.emplace_back("node_computation",
                      NpyArray::from_values<int32_t>({static_cast<int64_t>(names.computation.size())}, names.computation));
  arrays.emplace_back("computation_names", join_names(names.computations));
  return arrays;
}

}  // namespace graphcost
