// Config stores: a layout file's configs prepared once into a form that training reads a few rows at
// a time (docs/scaling.md). A real file's node_config_feat, (c, nc, 18) float32, is 0.5 to 2 GB;
// prepared, it is int8, deduplicated, uncompressed and memory-mapped, and a training step copies
// only its sampled configs' rows out of the map, so the process never holds the configs.
//
// An entry is the folder <cache>/<the file's path in its tree without ".npz">/, e.g.
// <cache>/layout/nlp/random/train/bert_x/, holding:
//   structure.npz  the file without node_config_feat: node_feat, node_opcode, edge_index,
//                  node_config_ids, node_splits; and per distinct config, config_runtime (int64 ns:
//                  the mean of its copies' runtimes, rounded to the nearest ns; zeros when the file
//                  hides runtimes) and config_copies (int64: how many of the file's configs it is)
//   configs.npy    int8 (distinct, nc, 18), uncompressed: numpy.load(path, mmap_mode="r") reads it
//   manifest.json  written last, so an entry without it is unfinished: the format, the source's
//                  path, size and modification time, and the counts
// Distinct configs keep the order of their first copy in the file. Two configs are copies when all
// their nc x 18 values agree, found by a 128-bit hash of the row (two independent 64-bit hashes: a
// false match among 10^5 rows has odds of about 10^-29).
//
// Preparing streams the member a piece at a time (ZipReader::read_in_pieces): it holds one piece,
// one row, the hashes of the distinct rows and the runtimes, never the array.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/tpu_graph.h"

namespace graphcost {

// Where `source` (a layout .npz inside a TpuGraphs tree) is prepared under `cache`. InputError for a
// file outside a tree or a tile file (tile configs are 24 floats each: they are loaded whole).
std::string config_store_folder(const std::string& cache, const std::string& source);

// True when `folder` holds a finished entry made from `source` as it is now (same size and
// modification time).
bool config_store_is_current(const std::string& folder, const std::string& source);

// The most of node_config_feat that preparing reads at a time under `memory_budget` bytes (0: no
// budget): 4 MiB, or a 16th of a smaller budget (preparing holds one piece and one row).
size_t config_store_piece_bytes(uint64_t memory_budget);

struct PreparedStore {
  int64_t configs = 0;   // in the file
  int64_t distinct = 0;  // kept
  uint64_t store_bytes = 0;
  bool reused = false;  // already current: nothing was done
};

// Prepares `source` into `folder` unless it is current there; reads at most `piece_bytes` of
// node_config_feat at a time. Bad input: InputError naming the file, the field, expected and
// actual; an unfinished entry is never left looking finished.
PreparedStore prepare_config_store(const std::string& source, const std::string& folder, size_t piece_bytes = 4u << 20);

// The counts an entry's manifest records, read without opening the rest (memory estimates).
struct ConfigStoreManifest {
  std::string source;
  int64_t nodes = 0, edges = 0, configurable = 0, configs = 0, distinct = 0;
};
ConfigStoreManifest read_config_store_manifest(const std::string& folder);

// One prepared entry, open: the graph's structure in memory, the configs mapped.
class StoredGraph {
 public:
  // Opens the entry `folder` made from `source` (InputError when it is unfinished, stale or corrupt).
  static std::unique_ptr<StoredGraph> open(const std::string& folder, const std::string& source);
  ~StoredGraph();
  StoredGraph(const StoredGraph&) = delete;
  StoredGraph& operator=(const StoredGraph&) = delete;

  int32_t config_count() const { return static_cast<int32_t>(runtimes_.size()); }  // distinct configs stored
  bool runtimes_hidden() const { return graph_.runtimes_hidden; }
  double ranking_target(int32_t config) const { return static_cast<double>(runtimes_[static_cast<size_t>(config)]); }
  const std::vector<int64_t>& copies() const { return copies_; }

  // The graph holding exactly `configs` (stored indices, in that order): their rows and runtimes.
  // The same object every time (its node data does not change), so a PreparedGraph made from it
  // stays valid; the rows' pages are released from the process after the copy.
  const TpuGraph& select(const std::vector<int32_t>& configs);
  // The graph as last selected (no configs before the first select).
  const TpuGraph& graph() const { return graph_; }

 private:
  StoredGraph() = default;
  TpuGraph graph_;
  std::vector<int64_t> runtimes_, copies_;
  std::string configs_path_;
  int fd_ = -1;
  const uint8_t* map_ = nullptr;
  size_t map_bytes_ = 0, data_offset_ = 0, row_bytes_ = 0;
};

}  // namespace graphcost
