// Where a file sits in the official TpuGraphs tree, derived from its path alone:
//   .../tile/xla/<split>/<stem>.npz                     -> collection "tile:xla"
//   .../layout/<xla|nlp>/<default|random>/<split>/<stem>.npz -> "layout:xla:default", ...
// The Kaggle submission ID is "<collection>:<stem>" (e.g. "layout:xla:default:unet3d").
#pragma once

#include <string>

#include "common/named_values.h"

namespace graphcost {

// What a file holds: a tile kernel's configs or a whole program's layout configs.
enum class GraphKind { Tile, Layout };
const char* graph_kind_name(GraphKind kind);     // "tile" / "layout", as model files and JSON write it
const NameTable<GraphKind>& graph_kind_names();  // the same names, for options and files (common/named_values.h)
// "tile:xla" -> Tile; any other collection name ("layout:...") -> Layout.
GraphKind collection_kind(const std::string& collection);

struct DatasetPath {
  std::string collection;  // "" when the path is outside the official tree
  std::string split;       // "train", "valid", "test" or ""
  std::string stem;        // file name without ".npz"

  bool in_tree() const { return !collection.empty(); }
  bool is_tile() const { return in_tree() && collection_kind(collection) == GraphKind::Tile; }
  bool is_layout() const { return collection.rfind("layout:", 0) == 0; }
  std::string kaggle_id() const { return in_tree() ? collection + ":" + stem : ""; }
};

DatasetPath parse_dataset_path(const std::string& path);

// Kaggle IDs are written into CSV files unquoted, so a file whose name becomes one must have a stem
// of printable ASCII without ',', '"', ':', spaces or control bytes. Throws InputError naming the
// file and the offending byte.
void check_id_stem(const std::string& path, const DatasetPath& location);

// Whether `split` is one of `split_list`, a comma-separated list such as "train,valid".
bool split_in_list(const std::string& split, const std::string& split_list);

// The five collections of the competition, in the order the leaderboard lists them.
constexpr const char* kCollections[] = {"tile:xla", "layout:xla:random", "layout:xla:default", "layout:nlp:random", "layout:nlp:default"};
// The collections `graphcost collect` writes (runtimes measured on a CPU): trained on and evaluated
// as the competition's, not scored on its boards.
constexpr const char* kMeasuredCollections[] = {"tile:cpu", "layout:cpu:random"};

}  // namespace graphcost
