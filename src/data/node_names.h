// NodeNames: what a person needs to find a node that the dataset's arrays drop: each node's HLO
// instruction name, its computation, and the source namespace (`op_name` of its metadata, e.g.
// `jit(train_step)/layer_3/dot_general`). `graphcost import` writes them (docs/import.md); the
// dataset's own files have none, and every reader loads files with or without them.
//
// Optional keys of a TpuGraphs .npz (n nodes, k computations):
//   node_names         u1 (bytes,): n UTF-8 names joined by '\n'
//   node_op_names      u1 (bytes,): n op_names joined by '\n' ("" where the metadata has none)
//   node_computation   i32 (n,):    index into computation_names
//   computation_names  u1 (bytes,): k names joined by '\n'
// (numpy: `bytes(f["node_names"]).decode().split("\n")`.) Names are UTF-8 without control bytes:
// the importer writes anything else as \xNN (common/input_error.h, printable()), and the reader
// does the same to a file written elsewhere, so a name never splits in two and always decodes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/npz_file.h"

namespace graphcost {

struct NodeNames {
  std::vector<std::string> instructions;  // per node; empty when the file has no names
  std::vector<std::string> op_names;      // per node
  std::vector<int32_t> computation;       // per node
  std::vector<std::string> computations;
  bool empty() const { return instructions.empty(); }
  // The computation name of a node ("" without names).
  const std::string& computation_of(int32_t node) const;
};

// The npz keys above, for NpzReadOptions::only.
const std::vector<std::string>& node_name_keys();

// Reads the names of a file with `node_count` nodes: empty NodeNames when the file has none of the
// keys; InputError naming `source` and the key when some are missing or their counts disagree.
NodeNames read_node_names(const NpzFile& npz, const std::string& source, int64_t node_count);

// The arrays that store `names` (none when empty).
std::vector<std::pair<std::string, NpyArray>> node_name_arrays(const NodeNames& names);

}  // namespace graphcost
