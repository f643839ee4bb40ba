// TpuGraphs' raw tuning records (google-research-datasets/tpu_graphs, tpu_graphs/proto/tuning.proto):
// the protos its .npz files are built from, read and turned into labelled TpuGraphs graphs the way
// the dataset's own code does (tpu_graphs/process_data/xla: hlo_encoder.cc, featurizers.h,
// tuning_data_iterator.cc).
//
// Messages and fields read (the rest is skipped):
//   TuningData: 1 modules (ModuleTuningData).
//   ModuleTuningData: 1 module (xla.HloModuleProto: hlo/hlo_proto.h), 2 fingerprint (uint64),
//     3 runs (ConfigProfile), 4 config_index_to_node (node indices in module order).
//   ConfigProfile: 1 op_config (HloOpConfig: 1 tile_size_config), 2 module_config
//     (HloModuleConfig: 1 layout_config), 3 error, 4 profile (xla.ExecutionProfile:
//     4 compute_time_ns), 5 is_default.
//   TileSizeConfig: 1 kernel_bounds, 2 output_bounds, 3 input_bounds.
//   LayoutConfig: 1 nodes (NodeLayoutConfig: 1 tensors (TensorLayoutConfig: 1 dims)).
//
// The dataset's rules, kept here:
//   layout: a run is kept when it has a module_config, no error and a profile; its node k's
//     tensors (output, input, kernel) give node_config_feat's 18 values (6 dims each, -1 padded);
//     config_runtime is compute_time_ns. With no default run among those kept the dataset keeps no
//     config: such a record is refused.
//   tile: a run is kept when it has no error and compute_time_ns > 1; config_feat is kernel, output
//     and input bounds, each 6 values, sum and product (an empty list multiplies to 0 here);
//     config_runtime_normalizers is the default run's compute_time_ns (none: refused); a module with
//     one run or fewer is skipped, as one with a run that lacks a tile_size_config.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/tpu_graph.h"
#include "hlo/hlo_module.h"

namespace graphcost {

struct TuningRun {
  bool error = false, is_default = false, has_profile = false;
  bool has_layout_config = false, has_tile_config = false;
  int64_t compute_time_ns = 0;
  uint64_t offset = 0;  // the ConfigProfile's byte offset, for messages
  // Layout: one row of 18 values per LayoutConfig node (-1 padded), in the record's node order.
  std::vector<int8_t> layout_rows;
  // Tile: config_feat's 24 values.
  std::array<float, kTileConfigFeatureCount> tile_features{};
};

struct ModuleTuningRecord {
  HloModule module;
  uint64_t fingerprint = 0;
  std::vector<int64_t> config_index_to_node;
  std::vector<TuningRun> runs;
  uint64_t offset = 0;  // the ModuleTuningData's byte offset
};

// The records of a ModuleTuningData file (one) or a TuningData file (`many`); the modules keep
// `bytes`. InputError (with the byte offset) on anything the readers refuse.
std::vector<ModuleTuningRecord> read_tuning_records(std::shared_ptr<const std::string> bytes, const std::string& source, bool many);

// What the dataset keeps of a record's runs, and why the others go.
struct KeptRuns {
  std::vector<size_t> runs;  // indices into record.runs, in order
  size_t default_run = 0;    // index into record.runs
  int64_t failed = 0, unmeasured = 0;
};

// A layout record as the dataset's labelled layout file: the module's graph, configurable nodes
// from config_index_to_node (sorted, rows following), each kept run a config. InputError naming the
// record when nothing is kept, a node index is out of range or repeated, or a value is not -1..5.
TpuGraph layout_graph_from_record(const ModuleTuningRecord& record, const std::string& provenance);
// A tile record as the dataset's tile file: the kernel module's graph, each kept run a config.
TpuGraph tile_graph_from_record(const ModuleTuningRecord& record, const std::string& provenance);
// True when a record's runs carry tile configs (op_config) rather than layouts.
bool is_tile_record(const ModuleTuningRecord& record);
// The dataset's rules above; InputError naming the record when no default run is kept.
KeptRuns kept_runs(const ModuleTuningRecord& record, bool tile);

}  // namespace graphcost
