// graphcost.Graph: a TpuGraphs example held by C++ (a std::shared_ptr<TpuGraph>), its arrays handed
// to numpy as read-only views of that memory (no copies: an array keeps the Graph alive), and the
// loaders: .npz files, modules (HLO text or protos) and tuning records.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>

#include "bindings.h"
#include "data/graph_summary.h"
#include "hlo/graph_file.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_import.h"
#include "hlo/module_file.h"
#include "hlo/tuning_records.h"
#include "io/byte_source.h"
#include "io/npz_file.h"

namespace py = pybind11;

namespace graphcost::python {
namespace {

// A read-only numpy view of `data` (shape, C order), kept alive by `owner` (the Python Graph).
template <typename T>
py::array view(py::handle owner, const T* data, std::vector<py::ssize_t> shape) {
  py::array array(py::dtype::of<T>(), shape, {}, data, owner);
  py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return array;
}

std::vector<GraphPtr> tile_kernels(const std::string& path, int configs, uint64_t seed) {
  py::gil_scoped_release release;
  HloImportOptions options;
  options.max_tile_configs = configs;
  options.seed = seed;
  const HloModule module = read_hlo_module(path);
  std::vector<GraphPtr> graphs;
  for_each_tile_kernel(module, options,
                       [&](FusionKernel& kernel, size_t) { graphs.push_back(std::make_shared<TpuGraph>(std::move(kernel.hlo.graph))); });
  return graphs;
}

std::vector<GraphPtr> records(const std::string& path) {
  py::gil_scoped_release release;
  std::string bytes = read_module_file(path);
  const ModuleFileFormat format = detect_module_file_format(bytes, path);
  if (format != ModuleFileFormat::ModuleTuningData && format != ModuleFileFormat::TuningData) {
    throw InputError(path, "format", "TpuGraphs tuning records (ModuleTuningData or TuningData)", module_file_format_name(format));
  }
  const std::vector<ModuleTuningRecord> all =
      read_tuning_records(std::make_shared<const std::string>(std::move(bytes)), path, format == ModuleFileFormat::TuningData);
  std::vector<GraphPtr> graphs;
  for (size_t r = 0; r < all.size(); ++r) {
    const bool tile = is_tile_record(all[r]);
    if (tile && all[r].runs.size() <= 1) continue;  // the dataset skips these
    const std::string provenance = record_provenance(path, format, all[r], r, all.size(), tile);
    graphs.push_back(
        std::make_shared<TpuGraph>(tile ? tile_graph_from_record(all[r], provenance) : layout_graph_from_record(all[r], provenance)));
  }
  return graphs;
}

// The Graph's identity and its node and edge arrays (read-only numpy views of its memory).
void bind_graph_arrays(py::class_<TpuGraph, GraphPtr>& graph) {
  graph
      .def_property_readonly(
          "kind", [](const TpuGraph& g) { return std::string(graph_kind_name(g.kind)); }, "'layout' or 'tile'")
      .def_property(
          "source", [](const TpuGraph& g) { return g.source; }, [](TpuGraph& g, const std::string& source) { g.source = source; },
          "the path it was read from")
      .def_property_readonly(
          "provenance", [](const TpuGraph& g) { return g.provenance; }, "where the contents come from ('' when unknown)")
      .def_property_readonly("node_count", [](const TpuGraph& g) { return g.node_count; })
      .def_property_readonly("config_count", [](const TpuGraph& g) { return g.config_count; })
      .def_property_readonly(
          "labelled", [](const TpuGraph& g) { return !g.runtimes_hidden; }, "runtimes measured (not all zero)")
      .def_property_readonly(
          "node_feat",
          [](py::object self) {
            const auto& g = self.cast<const TpuGraph&>();
            return view(self, g.node_features.data(), {g.node_count, kNodeFeatureCount});
          },
          "float32 (nodes, 140)")
      .def_property_readonly(
          "node_opcode",
          [](py::object self) {
            const auto& g = self.cast<const TpuGraph&>();
            return view(self, g.node_opcodes.data(), {g.node_count});
          },
          "uint8 (nodes,)")
      .def_property_readonly(
          "edge_index",
          [](py::object self) {
            const auto& g = self.cast<const TpuGraph&>();
            static_assert(sizeof(Edge) == 2 * sizeof(int32_t), "Edge is two int32");
            return view(self, reinterpret_cast<const int32_t*>(g.edges.data()), {static_cast<py::ssize_t>(g.edges.size()), 2});
          },
          "int32 (edges, 2): [consumer, producer] rows")
      .def_property_readonly(
          "config_feat",
          [](py::object self) -> py::object {
            const auto& g = self.cast<const TpuGraph&>();
            if (g.kind != GraphKind::Tile) return py::none();
            return view(self, g.tile_config_features.data(), {g.config_count, kTileConfigFeatureCount});
          },
          "tile: float32 (configs, 24); None for layout");
}

// The configs' arrays, the names, and the methods.
void bind_graph_configs(py::class_<TpuGraph, GraphPtr>& graph) {
  graph
      .def_property_readonly(
          "node_config_feat",
          [](py::object self) -> py::object {
            const auto& g = self.cast<const TpuGraph&>();
            if (g.kind != GraphKind::Layout) return py::none();
            return view(self, g.layout_config_features.data(), {g.config_count, g.configurable_count(), kLayoutConfigFeatureCount});
          },
          "layout: int8 (configs, configurable nodes, 18), values -1..5; None for tile")
      .def_property_readonly(
          "node_config_ids",
          [](py::object self) {
            const auto& g = self.cast<const TpuGraph&>();
            return view(self, g.configurable_nodes.data(), {g.configurable_count()});
          },
          "int32 (configurable nodes,)")
      .def_property_readonly(
          "config_runtime",
          [](py::object self) {
            const auto& g = self.cast<const TpuGraph&>();
            return view(self, g.config_runtime_ns.data(), {g.config_count});
          },
          "int64 (configs,): nanoseconds; all 0 when hidden")
      .def_property_readonly(
          "config_runtime_normalizers",
          [](py::object self) -> py::object {
            const auto& g = self.cast<const TpuGraph&>();
            if (g.kind != GraphKind::Tile) return py::none();
            return view(self, g.config_runtime_normalizers_ns.data(), {g.config_count});
          },
          "tile: int64 (configs,): the default config's runtime; None for layout")
      .def_property_readonly(
          "node_splits",
          [](py::object self) {
            const auto& g = self.cast<const TpuGraph&>();
            return view(self, g.node_splits.data(), {1, static_cast<py::ssize_t>(g.node_splits.size())});  // np.load's shape
          },
          "int64: computation starts, 0 first and nodes last (layout)")
      .def_property_readonly(
          "node_names", [](const TpuGraph& g) { return g.names.instructions; }, "instruction names ([] without names)")
      .def_property_readonly(
          "op_names", [](const TpuGraph& g) { return g.names.op_names; }, "metadata op_name per node")
      .def_property_readonly(
          "node_computations",
          [](const TpuGraph& g) {
            std::vector<std::string> per_node;
            for (int32_t n = 0; n < g.node_count && !g.names.empty(); ++n) per_node.push_back(g.names.computation_of(n));
            return per_node;
          },
          "each node's computation name")
      .def(
          "summary", [](const TpuGraph& g) { return json_to_python(graph_summary_json(summarize_graph(g))); },
          "what `graphcost info --json` says")
      .def(
          "save",
          [](const TpuGraph& g, const std::string& path) {
            py::gil_scoped_release release;
            save_tpu_graph(g, path);
          },
          py::arg("path"), "Writes the graph as a TpuGraphs .npz (the real files' keys and dtypes), atomically.")
      .def("__repr__", [](const TpuGraph& g) {
        return "<graphcost.Graph " + std::string(graph_kind_name(g.kind)) + ", " + std::to_string(g.node_count) + " nodes, " +
               std::to_string(g.config_count) + " configs" + (g.runtimes_hidden ? "" : ", labelled") + ">";
      });
}

}  // namespace

void bind_graph(py::module_& m) {
  py::class_<TpuGraph, GraphPtr> graph(m, "Graph", R"doc(One TpuGraphs example: a tile kernel or a layout program, with its configs.

Arrays are read-only numpy views of memory the Graph owns (no copy is made; an array keeps its
Graph alive). In-memory types: node_config_feat is int8 (the files' float32 values are -1..5),
edge_index is int32 [consumer, producer] rows (files store int64); values equal np.load's.)doc");
  bind_graph_arrays(graph);
  bind_graph_configs(graph);

  m.def(
      "_graph_from_bytes",
      [](const py::bytes& bytes, const std::string& source) {
        const std::string data = bytes;
        py::gil_scoped_release release;
        const NpzFile npz = read_npz(ByteSource::own_memory(source, std::vector<uint8_t>(data.begin(), data.end())));
        return std::make_shared<TpuGraph>(tpu_graph_from_npz(npz, source));
      },
      py::arg("data"), py::arg("source"), "A graph from a TpuGraphs .npz file's bytes (unpickling).");
  m.def(
      "load",
      [](const std::string& path) {
        py::gil_scoped_release release;
        return std::make_shared<TpuGraph>(load_graph_file(path).graph);
      },
      py::arg("path"), R"doc(Reads a graph: a TpuGraphs .npz (schema-checked as the CLI checks it), a module (HLO text,
HloProto or HloModuleProto: a layout graph, config 0 its own layouts and 100 random configs), or
tuning records of one module (the labelled graph the dataset builds). Raises graphcost.InputError
naming the file, the field, the expected and the actual value.)doc");
  m.def(
      "import_module",
      [](const std::string& path, int configs, uint64_t seed) {
        py::gil_scoped_release release;
        HloImportOptions options;
        options.random_configs = configs;
        options.seed = seed;
        return std::make_shared<TpuGraph>(import_hlo_layout(path, options).graph);
      },
      py::arg("path"), py::arg("configs") = 100, py::arg("seed") = 0,
      "An XLA module (HLO text or binary proto) as a layout graph: config 0 its own layouts, then `configs` random ones; names kept.");
  m.def("import_tile_kernels", &tile_kernels, py::arg("path"), py::arg("configs") = 1000, py::arg("seed") = 0,
        "A post-optimization module's fusions as tile graphs, each with up to `configs` tile configs.");
  m.def("import_records", &records, py::arg("path"),
        "TpuGraphs raw tuning records (ModuleTuningData or TuningData) as the labelled graphs the dataset builds from them.");
}

}  // namespace graphcost::python
