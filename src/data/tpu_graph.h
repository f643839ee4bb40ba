// TpuGraph: one TpuGraphs example (a tile kernel or a whole layout program) with its configs.
//
// Keys of a tile file:   node_feat f32 (n,140), node_opcode u8 (n,), edge_index i64 (m,2),
//                        config_feat f32 (c,24), config_runtime i64 (c,),
//                        config_runtime_normalizers i64 (c,)
// Keys of a layout file: node_feat, node_opcode, edge_index (stored Fortran order),
//                        node_config_ids i64 (nc,), node_config_feat f32 (c,nc,18),
//                        config_runtime i64 (c,), node_splits i64 (1,s)
// edge_index row [u, v] means node u consumes the output of node v.
// Either kind may also hold the optional node name keys of data/node_names.h (imported HLO), and
// `provenance` u1 (bytes,): UTF-8 text saying where the file's contents come from.
//
// Loading checks the whole schema and throws InputError naming the file, the key, the expected and
// the actual value. Accepted dtype variants: any integer dtype for integer keys (range-checked),
// float64 for float keys (rounded to float32, the model's precision), integer-valued floats are not
// accepted for integer keys. Runtimes are "hidden" when all are zero (Kaggle test files; tile test
// normalizers are then all 1); otherwise all must be positive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset_path.h"
#include "data/node_features.h"
#include "data/node_names.h"
#include "io/npz_file.h"

namespace graphcost {

struct Edge {
  int32_t consumer;  // u: reads the producer's output
  int32_t producer;  // v
};

struct TpuGraph {
  GraphKind kind = GraphKind::Tile;
  std::string source;    // path or label the graph was read from
  DatasetPath location;  // collection / split / stem derived from `source`

  int32_t node_count = 0;
  std::vector<float> node_features;   // node_count x 140, row-major
  std::vector<uint8_t> node_opcodes;  // node_count, ids < kOpcodeCount (data/opcodes.h)
  std::vector<Edge> edges;

  int32_t config_count = 0;
  std::vector<float> tile_config_features;     // tile: config_count x 24
  std::vector<int32_t> configurable_nodes;     // layout: ascending node ids (nc)
  std::vector<int8_t> layout_config_features;  // layout: config_count x nc x 18, values -1..5
  std::vector<int64_t> node_splits;            // layout: computation starts, 0 first, n last

  std::vector<int64_t> config_runtime_ns;              // config_count; zeros when hidden
  std::vector<int64_t> config_runtime_normalizers_ns;  // tile only: runtime of the default config
  bool runtimes_hidden = false;

  NodeNames names;  // optional (files from `graphcost import`): instruction, computation, op_name per node
  // Optional: where the file's graph, configs and runtimes come from (files from `graphcost import`:
  // "module_tuning_data_layout.pb: ModuleTuningData ..., 112 of 122 runs"), key `provenance`
  // (uint8 UTF-8 text).
  std::string provenance;

  int32_t configurable_count() const { return static_cast<int32_t>(configurable_nodes.size()); }
  float node_feature(int32_t node, int column) const { return node_features[node * kNodeFeatureCount + column]; }
  // Layout value of config `config`, configurable node index `slot`, column 0..17.
  int8_t layout_value(int32_t config, int32_t slot, int column) const {
    return layout_config_features[(static_cast<int64_t>(config) * configurable_count() + slot) * kLayoutConfigFeatureCount + column];
  }
};

// The quantity a graph's configs are ranked by, lower = faster (the metrics' definition): the
// runtime for layout, the runtime over the default config's runtime (normalizer) for tile.
double config_ranking_target(const TpuGraph& graph, int32_t config);
std::vector<double> config_ranking_targets(const TpuGraph& graph);  // every config's, in order

// One node_config_feat value as stored in memory, or InputError naming `source`, the config, node
// and column of element `index` (C order) of a file with `configurable` configurable nodes.
int8_t layout_config_value(float value, const std::string& source, uint64_t index, int64_t configurable);

// Where a layout graph's configs are: in the npz (node_config_feat), or elsewhere (a config store,
// data/config_store.h, reads them on demand): the npz then holds the rest, config_runtime sets the
// config count, and layout_config_features stays empty.
enum class LayoutConfigs { InFile, Elsewhere };

// InputError naming the graph's source, the node (or config) and the column of the first
// non-finite node_feat or config_feat value: nothing non-finite is ranked, trained on or written.
void check_features_finite(const TpuGraph& graph);

// Validates `npz` as a TpuGraphs example. `source` names it in errors and locates it in the tree
// (the kind follows the path when inside the tree, else the keys).
TpuGraph tpu_graph_from_npz(const NpzFile& npz, const std::string& source, LayoutConfigs layout_configs = LayoutConfigs::InFile);
TpuGraph load_tpu_graph(const std::string& path);

// Writes `graph` with the real files' keys, dtypes and orders (edge_index Fortran-order for layout),
// compressed like np.savez_compressed. InputError for a graph without configs (nothing is written).
void save_tpu_graph(const TpuGraph& graph, const std::string& path);

}  // namespace graphcost
