#include "hlo/tuning_records.h"

#include <algorithm>
#include <numeric>

#include "common/checked_arithmetic.h"
#include "common/input_error.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_proto.h"
#include "io/proto_wire.h"

namespace graphcost {
namespace {

constexpr size_t kLayoutMaxDims = 6, kLayoutMaxTensors = 3;

// LayoutConfig: one 18-value row per node (tuning_data_iterator.cc, FeaturizeLayoutConfig).
void read_layout_config(ProtoReader reader, TuningRun& run) {
  ProtoField node_field;
  while (reader.next(node_field)) {
    if (node_field.number != 1) continue;
    std::array<int8_t, kLayoutConfigFeatureCount> row;
    row.fill(-1);
    ProtoReader node = reader.nested(node_field, "NodeLayoutConfig");
    ProtoField tensor_field;
    size_t tensor = 0;
    while (node.next(tensor_field)) {
      if (tensor_field.number != 1) continue;
      if (tensor == kLayoutMaxTensors) node.fail(tensor_field, "at most 3 tensors (output, input, kernel)", "a fourth");
      ProtoReader tensor_reader = node.nested(tensor_field, "TensorLayoutConfig");
      std::vector<int64_t> dims;
      ProtoField dims_field;
      while (tensor_reader.next(dims_field)) {
        if (dims_field.number == 1) tensor_reader.append_int64s(dims_field, dims);
      }
      for (size_t d = 0; d < dims.size() && d < kLayoutMaxDims; ++d) {
        const int64_t value = static_cast<int32_t>(dims[d]);  // int32 on the wire
        if (value < -1 || value > 5)
          tensor_reader.fail(tensor_field, "dimension indices in -1..5 (a layout of rank 6 at most)", std::to_string(value));
        row[tensor * kLayoutMaxDims + d] = static_cast<int8_t>(value);
      }
      ++tensor;
    }
    run.layout_rows.insert(run.layout_rows.end(), row.begin(), row.end());
  }
}

// TileSizeConfig: config_feat (featurizers.h, FeaturizeTileSizeConfig: Fixed<6> with an empty
// list's product 0).
void read_tile_config(ProtoReader reader, TuningRun& run) {
  std::vector<int64_t> bounds[3];
  ProtoField field;
  while (reader.next(field)) {
    if (field.number >= 1 && field.number <= 3) reader.append_int64s(field, bounds[field.number - 1]);
  }
  for (size_t k = 0; k < 3; ++k) {
    const std::vector<int64_t>& values = bounds[k];
    const std::optional<SumAndProduct> aggregates = checked_sum_and_product(values.size(), [&](size_t i) { return values[i]; });
    if (!aggregates) reader.fail_at(reader.base_offset(), "", "tile bounds whose sum and product fit in 64 bits", "more");
    for (size_t i = 0; i < values.size() && i < 6; ++i) run.tile_features[k * 8 + i] = static_cast<float>(values[i]);
    run.tile_features[k * 8 + 6] = static_cast<float>(aggregates->sum);
    run.tile_features[k * 8 + 7] = values.empty() ? 0.0f : static_cast<float>(aggregates->product);
  }
}

TuningRun read_run(ProtoReader reader) {
  TuningRun run;
  run.offset = reader.base_offset();
  ProtoField field;
  while (reader.next(field)) {
    switch (field.number) {
      case 1: {  // HloOpConfig
        ProtoReader op = reader.nested(field, "HloOpConfig");
        ProtoField f;
        while (op.next(f)) {
          if (f.number != 1) continue;
          run.has_tile_config = true;
          read_tile_config(op.nested(f, "TileSizeConfig"), run);
        }
        break;
      }
      case 2: {  // HloModuleConfig
        ProtoReader config = reader.nested(field, "HloModuleConfig");
        ProtoField f;
        while (config.next(f)) {
          if (f.number != 1) continue;
          run.has_layout_config = true;
          read_layout_config(config.nested(f, "LayoutConfig"), run);
        }
        break;
      }
      case 3:
        run.error = reader.boolean(field);
        break;
      case 4: {
        run.has_profile = true;
        ProtoReader profile = reader.nested(field, "ExecutionProfile");
        ProtoField f;
        while (profile.next(f)) {
          if (f.number == 4) run.compute_time_ns = profile.int64(f);
        }
        break;
      }
      case 5:
        run.is_default = reader.boolean(field);
        break;
      default:
        break;
    }
  }
  return run;
}

ModuleTuningRecord read_record(const std::shared_ptr<const std::string>& bytes, ProtoReader reader) {
  ModuleTuningRecord record;
  record.offset = reader.base_offset();
  bool has_module = false;
  ProtoField field;
  while (reader.next(field)) {
    switch (field.number) {
      case 1: {
        const std::string_view module = reader.bytes(field);
        record.module = hlo_module_from_proto(bytes, module, static_cast<uint64_t>(module.data() - bytes->data()), reader.source());
        has_module = true;
        break;
      }
      case 2:
        record.fingerprint = reader.uint64(field);
        break;
      case 3:
        record.runs.push_back(read_run(reader.nested(field, "ConfigProfile")));
        break;
      case 4:
        reader.append_int64s(field, record.config_index_to_node);
        break;
      default:
        break;
    }
  }
  if (!has_module) reader.fail_at(record.offset, "", "a module (field 1, an HloModuleProto)", "none");
  return record;
}

std::string record_name(const ModuleTuningRecord& record) {
  return "ModuleTuningData at byte " + std::to_string(record.offset) + " (module " + excerpt(record.module.name) + ")";
}

}  // namespace

std::vector<ModuleTuningRecord> read_tuning_records(std::shared_ptr<const std::string> bytes, const std::string& source, bool many) {
  std::vector<ModuleTuningRecord> records;
  ProtoReader top(*bytes, 0, source, many ? "TuningData" : "ModuleTuningData");
  if (!many) {
    records.push_back(read_record(bytes, top));
    return records;
  }
  ProtoField field;
  while (top.next(field)) {
    if (field.number == 1) records.push_back(read_record(bytes, top.nested(field, "ModuleTuningData")));
  }
  if (records.empty()) top.fail_at(0, "", "at least one ModuleTuningData (field 1)", "none");
  return records;
}

bool is_tile_record(const ModuleTuningRecord& record) {
  return std::any_of(record.runs.begin(), record.runs.end(), [](const TuningRun& run) { return run.has_tile_config; });
}

KeptRuns kept_runs(const ModuleTuningRecord& record, bool tile) {
  KeptRuns kept;
  bool found_default = false;
  for (size_t r = 0; r < record.runs.size(); ++r) {
    const TuningRun& run = record.runs[r];
    const bool keep = tile ? !run.error && run.compute_time_ns > 1 : run.has_layout_config && !run.error && run.has_profile;
    if (!keep) {
      kept.failed += run.error ? 1 : 0;
      kept.unmeasured += run.error ? 0 : 1;
      continue;
    }
    if (!tile && run.compute_time_ns <= 0) {
      throw InputError(record.module.source, "byte " + std::to_string(run.offset) + ": ConfigProfile profile compute_time_ns",
                       "a positive runtime in a run without an error", std::to_string(run.compute_time_ns));
    }
    if (run.is_default && !found_default) {
      kept.default_run = r;
      found_default = true;
    }
    kept.runs.push_back(r);
  }
  if (!found_default) {
    throw InputError(record.module.source, record_name(record),
                     "a default run (is_default) among the runs kept (the dataset keeps no config without one)",
                     std::to_string(kept.runs.size()) + " kept, none default");
  }
  return kept;
}

TpuGraph layout_graph_from_record(const ModuleTuningRecord& record, const std::string& provenance) {
  const KeptRuns kept = kept_runs(record, false);
  HloGraph hlo = build_hlo_graph(record.module);
  TpuGraph& graph = hlo.graph;
  const size_t nc = record.config_index_to_node.size();
  // node_config_ids ascending (the loader's rule); the rows follow their nodes.
  std::vector<size_t> order(nc);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return record.config_index_to_node[a] < record.config_index_to_node[b]; });
  for (size_t k = 0; k < nc; ++k) {
    const int64_t node = record.config_index_to_node[order[k]];
    if (node < 0 || node >= graph.node_count || (k > 0 && node == graph.configurable_nodes.back())) {
      throw InputError(record.module.source, record_name(record) + " config_index_to_node",
                       "distinct node indices below " + std::to_string(graph.node_count), std::to_string(node));
    }
    graph.configurable_nodes.push_back(static_cast<int32_t>(node));
  }
  for (const size_t r : kept.runs) {
    const TuningRun& run = record.runs[r];
    if (run.layout_rows.size() != nc * kLayoutConfigFeatureCount) {
      throw InputError(record.module.source, "byte " + std::to_string(run.offset) + ": ConfigProfile layout_config nodes",
                       std::to_string(nc) + " (one per config_index_to_node entry)",
                       std::to_string(run.layout_rows.size() / kLayoutConfigFeatureCount));
    }
    for (size_t k = 0; k < nc; ++k) {
      const auto row = run.layout_rows.begin() + static_cast<std::ptrdiff_t>(order[k] * kLayoutConfigFeatureCount);
      graph.layout_config_features.insert(graph.layout_config_features.end(), row, row + kLayoutConfigFeatureCount);
    }
    graph.config_runtime_ns.push_back(run.compute_time_ns);
  }
  graph.config_count = static_cast<int32_t>(kept.runs.size());
  graph.runtimes_hidden = false;
  graph.source = record.module.source;
  graph.provenance = provenance;
  return std::move(hlo.graph);
}

TpuGraph tile_graph_from_record(const ModuleTuningRecord& record, const std::string& provenance) {
  for (const TuningRun& run : record.runs) {
    if (!run.has_tile_config) {
      throw InputError(record.module.source, "byte " + std::to_string(run.offset) + ": ConfigProfile op_config",
                       "a tile_size_config in every run of a tile record", "none");
    }
  }
  const KeptRuns kept = kept_runs(record, true);
  HloGraph hlo = build_hlo_graph(record.module);
  TpuGraph& graph = hlo.graph;
  graph.kind = GraphKind::Tile;
  graph.node_splits.clear();
  const int64_t normalizer = record.runs[kept.default_run].compute_time_ns;
  for (const size_t r : kept.runs) {
    const TuningRun& run = record.runs[r];
    graph.tile_config_features.insert(graph.tile_config_features.end(), run.tile_features.begin(), run.tile_features.end());
    graph.config_runtime_ns.push_back(run.compute_time_ns);
    graph.config_runtime_normalizers_ns.push_back(normalizer);
  }
  graph.config_count = static_cast<int32_t>(kept.runs.size());
  graph.runtimes_hidden = false;
  graph.source = record.module.source;
  graph.provenance = provenance;
  return std::move(hlo.graph);
}

}  // namespace graphcost
