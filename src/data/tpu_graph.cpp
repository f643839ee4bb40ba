#include "data/tpu_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/input_error.h"
#include "data/node_features.h"
#include "data/opcodes.h"

namespace graphcost {
namespace {

constexpr int64_t kAnyDimension = -1;
constexpr int64_t kMaxCount = std::numeric_limits<int32_t>::max();

std::string shape_pattern(const std::vector<int64_t>& dims, const std::vector<std::string>& names) {
  std::string text = "(";
  for (size_t k = 0; k < dims.size(); ++k) {
    if (k > 0) text += ", ";
    text += names[k].empty() ? std::to_string(dims[k]) : names[k];
  }
  return text + (dims.size() == 1 ? ",)" : ")");
}

// Reads keys of one npz with uniform, precise errors.
class SchemaReader {
 public:
  SchemaReader(const NpzFile& npz, std::string file, GraphKind kind) : npz_(npz), file_(std::move(file)), kind_(kind) {}

  // `dims`: expected sizes, kAnyDimension for a size named in `names` that is free here.
  const NpyArray& require(const std::string& key, std::vector<int64_t> dims, std::vector<std::string> names) const {
    const NpyArray* array = npz_.find(key);
    if (array == nullptr) {
      std::string present;
      for (const std::string& name : npz_.names) present += (present.empty() ? "" : ", ") + name;
      throw InputError(file_, "key '" + key + "'", std::string("present in a ") + graph_kind_name(kind_) + " file",
                       "missing (keys: " + (present.empty() ? std::string("none") : present) + ")");
    }
    bool matches = array->rank() == static_cast<int>(dims.size());
    for (size_t k = 0; matches && k < dims.size(); ++k) {
      matches = dims[k] == kAnyDimension || dims[k] == array->shape()[k];
    }
    if (!matches) {
      std::vector<int64_t> shown = dims;
      std::vector<std::string> labels = names;
      for (size_t k = 0; k < dims.size(); ++k) {
        if (dims[k] != kAnyDimension && !labels[k].empty() && labels[k] != std::to_string(dims[k])) {
          labels[k] += "=" + std::to_string(dims[k]);
        }
      }
      throw InputError(file_, key, "shape " + shape_pattern(shown, labels),
                       "shape " + array->shape_text() + " (" + dtype_name(array->dtype()) + ")");
    }
    for (int64_t dim : array->shape()) {
      if (dim > kMaxCount) {
        throw InputError(file_, key, "dimensions below 2^31", "shape " + array->shape_text());
      }
    }
    return *array;
  }

  template <typename T>
  std::vector<T> values(const NpyArray& array, const std::string& key) const {
    const bool want_integer = std::is_integral_v<T>;
    const bool is_float = array.dtype() == DType::Float32 || array.dtype() == DType::Float64;
    if (want_integer && is_float) {
      throw InputError(file_, key, "an integer dtype (int64 on disk)", dtype_name(array.dtype()));
    }
    if (!want_integer && !is_float) {
      throw InputError(file_, key, "a float dtype (float32 on disk)", dtype_name(array.dtype()));
    }
    return array.to_vector<T>(file_, key);
  }

  [[noreturn]] void fail(const std::string& key, const std::string& expected, const std::string& actual) const {
    throw InputError(file_, key, expected, actual);
  }

 private:
  const NpzFile& npz_;
  std::string file_;
  GraphKind kind_;
};

void check_runtimes(const SchemaReader& reader, TpuGraph& graph) {
  const auto& runtimes = graph.config_runtime_ns;
  const bool all_zero = std::all_of(runtimes.begin(), runtimes.end(), [](int64_t r) { return r == 0; });
  graph.runtimes_hidden = all_zero && !runtimes.empty();
  if (!all_zero) {
    for (size_t i = 0; i < runtimes.size(); ++i) {
      if (runtimes[i] <= 0) {
        reader.fail("config_runtime", "all values positive (labelled) or all zero (hidden)",
                    std::to_string(runtimes[i]) + " at config " + std::to_string(i));
      }
    }
  }
  const auto& normalizers = graph.config_runtime_normalizers_ns;
  for (size_t i = 0; i < normalizers.size(); ++i) {
    if (normalizers[i] <= 0) {
      reader.fail("config_runtime_normalizers", "positive values", std::to_string(normalizers[i]) + " at config " + std::to_string(i));
    }
  }
}

GraphKind kind_from_keys(const NpzFile& npz, const std::string& source) {
  const bool tile = npz.find("config_feat") != nullptr;
  const bool layout = npz.find("node_config_feat") != nullptr;
  if (tile == layout) {
    throw InputError(source, "keys", "exactly one of 'config_feat' (tile) or 'node_config_feat' (layout)", tile ? "both" : "neither");
  }
  return tile ? GraphKind::Tile : GraphKind::Layout;
}

}  // namespace

int8_t layout_config_value(float value, const std::string& source, uint64_t index, int64_t configurable) {
  if (!(value >= -1.0f && value <= 5.0f) || std::trunc(value) != value) {
    const uint64_t per_config = static_cast<uint64_t>(configurable) * kLayoutConfigFeatureCount;
    throw InputError(source, "node_config_feat", "integers in -1..5 (minor-to-major dimension indices)",
                     std::to_string(value) + " at config " + std::to_string(index / per_config) + ", configurable node " +
                         std::to_string(index % per_config / kLayoutConfigFeatureCount) + ", column " +
                         std::to_string(index % kLayoutConfigFeatureCount));
  }
  return static_cast<int8_t>(value);
}

double config_ranking_target(const TpuGraph& graph, int32_t config) {
  const double runtime = static_cast<double>(graph.config_runtime_ns[static_cast<size_t>(config)]);
  return graph.kind == GraphKind::Tile ? runtime / static_cast<double>(graph.config_runtime_normalizers_ns[static_cast<size_t>(config)])
                                       : runtime;
}

std::vector<double> config_ranking_targets(const TpuGraph& graph) {
  std::vector<double> targets(graph.config_runtime_ns.size());
  for (size_t c = 0; c < targets.size(); ++c) targets[c] = config_ranking_target(graph, static_cast<int32_t>(c));
  return targets;
}

void check_features_finite(const TpuGraph& graph) {
  for (size_t i = 0; i < graph.node_features.size(); ++i) {
    if (!std::isfinite(graph.node_features[i])) {
      throw InputError(graph.source, "node_feat", "finite values",
                       std::to_string(graph.node_features[i]) + " at node " + std::to_string(i / kNodeFeatureCount) + ", column " +
                           std::to_string(i % kNodeFeatureCount) + " (" + node_feature_name(static_cast<int>(i % kNodeFeatureCount)) + ")");
    }
  }
  for (size_t i = 0; i < graph.tile_config_features.size(); ++i) {
    if (!std::isfinite(graph.tile_config_features[i])) {
      throw InputError(graph.source, "config_feat", "finite values",
                       std::to_string(graph.tile_config_features[i]) + " at config " + std::to_string(i / kTileConfigFeatureCount) +
                           ", column " + std::to_string(i % kTileConfigFeatureCount));
    }
  }
}

TpuGraph tpu_graph_from_npz(const NpzFile& npz, const std::string& source, LayoutConfigs layout_configs) {
  TpuGraph graph;
  graph.source = source;
  graph.location = parse_dataset_path(source);
  if (layout_configs == LayoutConfigs::Elsewhere) {
    graph.kind = GraphKind::Layout;
  } else if (graph.location.in_tree()) {
    graph.kind = graph.location.is_tile() ? GraphKind::Tile : GraphKind::Layout;
  } else {
    graph.kind = kind_from_keys(npz, source);
  }
  const SchemaReader reader(npz, source, graph.kind);

  const NpyArray& node_feat = reader.require("node_feat", {kAnyDimension, kNodeFeatureCount}, {"n", std::to_string(kNodeFeatureCount)});
  const int64_t n = node_feat.shape()[0];
  if (n == 0) reader.fail("node_feat", "at least one node", "shape " + node_feat.shape_text());
  graph.node_count = static_cast<int32_t>(n);
  // Shapes before values: a file whose arrays disagree is refused before any is converted (a copy
  // as large as the array itself).
  const NpyArray& node_opcode = reader.require("node_opcode", {n}, {"n"});
  graph.node_features = reader.values<float>(node_feat, "node_feat");

  graph.node_opcodes = reader.values<uint8_t>(node_opcode, "node_opcode");
  for (size_t i = 0; i < graph.node_opcodes.size(); ++i) {
    if (graph.node_opcodes[i] >= kOpcodeCount) {
      reader.fail("node_opcode", "ids 0..120", std::to_string(graph.node_opcodes[i]) + " at node " + std::to_string(i));
    }
  }

  const NpyArray& edge_index = reader.require("edge_index", {kAnyDimension, 2}, {"m", "2"});
  const std::vector<int64_t> edge_values = reader.values<int64_t>(edge_index, "edge_index");
  graph.edges.resize(edge_values.size() / 2);
  for (size_t e = 0; e < graph.edges.size(); ++e) {
    const int64_t consumer = edge_values[2 * e], producer = edge_values[2 * e + 1];
    if (consumer < 0 || consumer >= n || producer < 0 || producer >= n) {
      reader.fail("edge_index", "node ids in [0, " + std::to_string(n) + ")",
                  "[" + std::to_string(consumer) + ", " + std::to_string(producer) + "] in row " + std::to_string(e));
    }
    graph.edges[e] = {static_cast<int32_t>(consumer), static_cast<int32_t>(producer)};
  }

  if (graph.kind == GraphKind::Tile) {
    const NpyArray& config_feat =
        reader.require("config_feat", {kAnyDimension, kTileConfigFeatureCount}, {"c", std::to_string(kTileConfigFeatureCount)});
    const int64_t c = config_feat.shape()[0];
    graph.config_count = static_cast<int32_t>(c);
    graph.tile_config_features = reader.values<float>(config_feat, "config_feat");
    const NpyArray& runtime = reader.require("config_runtime", {c}, {"c"});
    graph.config_runtime_ns = reader.values<int64_t>(runtime, "config_runtime");
    const NpyArray& normalizers = reader.require("config_runtime_normalizers", {c}, {"c"});
    graph.config_runtime_normalizers_ns = reader.values<int64_t>(normalizers, "config_runtime_normalizers");
  } else {
    const NpyArray& ids = reader.require("node_config_ids", {kAnyDimension}, {"nc"});
    const int64_t nc = ids.shape()[0];
    const std::vector<int64_t> id_values = reader.values<int64_t>(ids, "node_config_ids");
    graph.configurable_nodes.resize(id_values.size());
    for (size_t i = 0; i < id_values.size(); ++i) {
      if (id_values[i] < 0 || id_values[i] >= n) {
        reader.fail("node_config_ids", "node ids in [0, " + std::to_string(n) + ")",
                    std::to_string(id_values[i]) + " at index " + std::to_string(i));
      }
      if (i > 0 && id_values[i] <= id_values[i - 1]) {
        reader.fail("node_config_ids", "strictly ascending ids",
                    std::to_string(id_values[i]) + " after " + std::to_string(id_values[i - 1]) + " at index " + std::to_string(i));
      }
      graph.configurable_nodes[i] = static_cast<int32_t>(id_values[i]);
    }
    int64_t c = 0;
    if (layout_configs == LayoutConfigs::Elsewhere) {
      c = reader.require("config_runtime", {kAnyDimension}, {"c"}).shape()[0];
      graph.config_count = static_cast<int32_t>(c);
    } else {
      const NpyArray& config_feat = reader.require("node_config_feat", {kAnyDimension, nc, kLayoutConfigFeatureCount},
                                                   {"c", "nc", std::to_string(kLayoutConfigFeatureCount)});
      c = config_feat.shape()[0];
      graph.config_count = static_cast<int32_t>(c);
      if (config_feat.dtype() != DType::Float32 && config_feat.dtype() != DType::Float64) {
        reader.fail("node_config_feat", "a float dtype (float32 on disk)", dtype_name(config_feat.dtype()));
      }
      graph.layout_config_features.resize(static_cast<size_t>(config_feat.element_count()));
      {
        // Values are minor-to-major dimension indices (-1 = none): integers in -1..5.
        const std::vector<float> raw = config_feat.to_vector<float>(source, "node_config_feat");
        for (size_t i = 0; i < raw.size(); ++i) graph.layout_config_features[i] = layout_config_value(raw[i], source, i, nc);
      }
    }
    const NpyArray& runtime = reader.require("config_runtime", {c}, {"c"});
    graph.config_runtime_ns = reader.values<int64_t>(runtime, "config_runtime");
    const NpyArray& splits = reader.require("node_splits", {1, kAnyDimension}, {"1", "s"});
    graph.node_splits = reader.values<int64_t>(splits, "node_splits");
    for (size_t i = 0; i < graph.node_splits.size(); ++i) {
      const int64_t split = graph.node_splits[i];
      if (split < 0 || split > n || (i > 0 && split < graph.node_splits[i - 1])) {
        reader.fail("node_splits", "non-decreasing node ids in [0, " + std::to_string(n) + "]",
                    std::to_string(split) + " at index " + std::to_string(i));
      }
    }
  }
  if (graph.config_count == 0) {
    reader.fail(graph.kind == GraphKind::Tile ? "config_feat" : "node_config_feat", "at least one config", "0 configs");
  }
  check_runtimes(reader, graph);
  check_features_finite(graph);
  graph.names = read_node_names(npz, source, n);
  if (const NpyArray* provenance = npz.find("provenance")) {
    if (provenance->rank() != 1 || provenance->dtype() != DType::UInt8) {
      reader.fail("provenance", "a 1-D uint8 array (UTF-8 text)",
                  std::string(dtype_name(provenance->dtype())) + " of shape " + provenance->shape_text());
    }
    graph.provenance = printable(std::string_view(reinterpret_cast<const char*>(provenance->data()), provenance->byte_size()));
  }
  return graph;
}

TpuGraph load_tpu_graph(const std::string& path) {
  // Only the schema's keys are inflated (the memory policy in docs/architecture.md).
  NpzReadOptions options;
  options.only = {"node_feat",       "node_opcode",      "edge_index", "config_feat", "config_runtime", "config_runtime_normalizers",
                  "node_config_ids", "node_config_feat", "node_splits"};
  options.only.insert(options.only.end(), node_name_keys().begin(), node_name_keys().end());
  options.only.push_back("provenance");
  try {
    return tpu_graph_from_npz(read_npz_file(path, options), path);
  } catch (const std::bad_alloc&) {
    throw InputError(path, "", "memory to load it (arrays and their converted copies)",
                     "an allocation failure (out of memory or under ulimit -v)");
  }
}

void save_tpu_graph(const TpuGraph& graph, const std::string& path) {
  const int64_t n = graph.node_count, c = graph.config_count;
  // A file without configs is not a TpuGraphs example: load_tpu_graph would refuse what was written.
  if (c < 1) throw InputError(path, "config_count", "1 or more configs (a TpuGraphs file holds its configs)", "0");
  std::vector<int64_t> edge_values(graph.edges.size() * 2);
  const bool layout = graph.kind == GraphKind::Layout;
  // Layout files store edge_index in Fortran order (all consumers, then all producers).
  const size_t m = graph.edges.size();
  for (size_t e = 0; e < m; ++e) {
    if (layout) {
      edge_values[e] = graph.edges[e].consumer;
      edge_values[m + e] = graph.edges[e].producer;
    } else {
      edge_values[2 * e] = graph.edges[e].consumer;
      edge_values[2 * e + 1] = graph.edges[e].producer;
    }
  }
  // Each array is built, written and freed before the next: the peak is the largest one.
  NpzWriter writer(path, ZipCompression::Deflate);
  writer.add("node_feat", NpyArray::from_values<float>({n, kNodeFeatureCount}, graph.node_features));
  writer.add("node_opcode", NpyArray::from_values<uint8_t>({n}, graph.node_opcodes));
  writer.add("edge_index", NpyArray::from_values<int64_t>({static_cast<int64_t>(m), 2}, edge_values, layout));
  if (!layout) {
    writer.add("config_feat", NpyArray::from_values<float>({c, kTileConfigFeatureCount}, graph.tile_config_features));
    writer.add("config_runtime", NpyArray::from_values<int64_t>({c}, graph.config_runtime_ns));
    writer.add("config_runtime_normalizers", NpyArray::from_values<int64_t>({c}, graph.config_runtime_normalizers_ns));
  } else {
    const int64_t nc = graph.configurable_count();
    const std::vector<int64_t> ids(graph.configurable_nodes.begin(), graph.configurable_nodes.end());
    writer.add("node_config_feat",
               NpyArray::from_converted_values<float>({c, nc, kLayoutConfigFeatureCount}, graph.layout_config_features));
    writer.add("node_config_ids", NpyArray::from_values<int64_t>({nc}, ids));
    writer.add("config_runtime", NpyArray::from_values<int64_t>({c}, graph.config_runtime_ns));
    writer.add("node_splits", NpyArray::from_values<int64_t>({1, static_cast<int64_t>(graph.node_splits.size())}, graph.node_splits));
  }
  for (const auto& [name, array] : node_name_arrays(graph.names)) writer.add(name, array);
  if (!graph.provenance.empty()) {
    writer.add("provenance", NpyArray::from_values<uint8_t>({static_cast<int64_t>(graph.provenance.size())},
                                                            std::vector<uint8_t>(graph.provenance.begin(), graph.provenance.end())));
  }
  writer.finish();
}

}  // namespace graphcost
