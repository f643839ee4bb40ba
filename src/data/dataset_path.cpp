#include "data/dataset_path.h"

#include <cstdio>
#include <vector>

#include "common/input_error.h"

namespace graphcost {

const char* graph_kind_name(GraphKind kind) { return kind == GraphKind::Tile ? "tile" : "layout"; }

const NameTable<GraphKind>& graph_kind_names() {
  static const NameTable<GraphKind> names = {{"tile", GraphKind::Tile}, {"layout", GraphKind::Layout}};
  return names;
}

GraphKind collection_kind(const std::string& collection) { return collection.rfind("tile:", 0) == 0 ? GraphKind::Tile : GraphKind::Layout; }
namespace {

std::vector<std::string> split_components(const std::string& path) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : path) {
    if (c == '/' || c == '\\') {
      if (!current.empty()) parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

bool is_split(const std::string& name) { return name == "train" || name == "valid" || name == "test"; }

}  // namespace

DatasetPath parse_dataset_path(const std::string& path) {
  DatasetPath location;
  const std::vector<std::string> parts = split_components(path);
  if (parts.empty()) return location;
  std::string file = parts.back();
  if (file.size() > 4 && file.compare(file.size() - 4, 4, ".npz") == 0) file.resize(file.size() - 4);
  location.stem = file;
  const size_t n = parts.size();
  // xla and nlp: the dataset's sources; cpu: runtimes measured on a CPU by `graphcost collect`.
  if (n >= 4 && parts[n - 4] == "tile" && (parts[n - 3] == "xla" || parts[n - 3] == "cpu") && is_split(parts[n - 2])) {
    location.collection = "tile:" + parts[n - 3];
    location.split = parts[n - 2];
  } else if (n >= 5 && parts[n - 5] == "layout" && (parts[n - 4] == "xla" || parts[n - 4] == "nlp" || parts[n - 4] == "cpu") &&
             (parts[n - 3] == "default" || parts[n - 3] == "random") && is_split(parts[n - 2])) {
    location.collection = "layout:" + parts[n - 4] + ":" + parts[n - 3];
    location.split = parts[n - 2];
  }
  return location;
}

void check_id_stem(const std::string& path, const DatasetPath& location) {
  if (location.stem.empty()) {
    throw InputError(path, "file name", "a non-empty name before .npz (a Kaggle ID)", "an empty name");
  }
  for (size_t i = 0; i < location.stem.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(location.stem[i]);
    if (c <= 0x20 || c >= 0x7f || c == ',' || c == '"' || c == ':') {
      char shown[8];
      std::snprintf(shown, sizeof shown, "0x%02x", c);
      throw InputError(path, "file name", "printable ASCII without ',', '\"', ':' or spaces (it becomes a Kaggle ID in CSV files)",
                       std::string("byte ") + shown + " at position " + std::to_string(i));
    }
  }
}

bool split_in_list(const std::string& split, const std::string& split_list) {
  return !split.empty() && ("," + split_list + ",").find("," + split + ",") != std::string::npos;
}

}  // namespace graphcost
