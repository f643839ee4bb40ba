// The simulator (every config of a graph priced, a GEMM on a TPU profile) and the generator (a
// synthetic TpuGraphs tree labelled by the simulator), as `graphcost simulate` and `gen` run them.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "common/input_error.h"
#include "simulator/cost_simulator.h"
#include "simulator/gemm_model.h"
#include "simulator/hardware_profile.h"
#include "simulator/program_from_graph.h"
#include "synth/dataset_generator.h"

namespace py = pybind11;

namespace graphcost::python {

void bind_simulation(py::module_& m) {
  m.def(
      "simulate",
      [](const TpuGraph& graph, const std::string& hardware_name) {
        std::vector<double> seconds;
        {
          py::gil_scoped_release release;
          const HardwareModel hardware = hardware_profile(hardware_name);
          if (graph.kind == GraphKind::Layout) {
            RebuiltProgram rebuilt = rebuild_program(graph);
            const LayoutProgram program(std::move(rebuilt.nodes), rebuilt.configurable, hardware);
            IncrementalLayoutRuntime runtime(program);
            const size_t width = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
            std::vector<int8_t> config(width);
            for (int32_t c = 0; c < graph.config_count; ++c) {
              std::copy_n(graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(c) * width), width,
                          config.begin());
              seconds.push_back(runtime.runtime(config));
            }
          } else {
            const TileKernel kernel = rebuild_tile_kernel(graph);
            for (const std::vector<int64_t>& tile : tiles_of_configs(graph)) seconds.push_back(tile_runtime(kernel, tile, hardware));
          }
        }
        return py::array_t<double>(static_cast<py::ssize_t>(seconds.size()), seconds.data());
      },
      py::arg("graph"), py::arg("hardware") = "nominal",
      "Every config's simulated runtime (seconds), as `graphcost simulate` prices it; hardware: nominal, tpu-v5e, tpu-v6e or a JSON "
      "profile.");
  m.def(
      "gemm_seconds",
      [](int64_t m_rows, int64_t n, int64_t k, const std::string& dtype, const std::string& hardware) {
        if (m_rows < 1 || n < 1 || k < 1)
          throw InputError("", "m, n, k", "sizes of 1 or more",
                           std::to_string(m_rows) + ", " + std::to_string(n) + ", " + std::to_string(k));
        if (dtype != "bf16" && dtype != "int8") throw InputError("", "dtype", "bf16 or int8", dtype);
        const HardwareModel profile = hardware_profile(hardware);
        if (profile.mxu_dim <= 0) throw InputError(hardware, "mxu_dim", "a profile with the matrix unit's size (tpu-v5e, tpu-v6e)", "0");
        return gemm_seconds({m_rows, n, k, dtype == "int8" ? GemmType::Int8 : GemmType::BF16, "", 0}, profile);
      },
      py::arg("m"), py::arg("n"), py::arg("k"), py::arg("dtype") = "bf16", py::arg("hardware") = "tpu-v5e",
      "One matrix multiplication's predicted time (seconds) on a TPU profile (docs/simulator.md).");
  m.def(
      "generate",
      [](const std::string& out, int graphs, uint64_t seed, const std::vector<std::string>& collections, int threads) {
        GeneratorOptions options;
        options.out = out;
        options.graphs = graphs;
        options.seed = seed;
        options.collections = collections;
        options.threads = threads;
        GeneratorReport report;
        {
          py::gil_scoped_release release;
          try {
            report = generate_dataset(options);
          } catch (const std::invalid_argument& e) {
            throw InputError(out, "generate", "valid options", e.what());
          }
        }
        py::dict result;
        std::vector<std::string> files;
        for (const GeneratedFile& file : report.files) files.push_back(file.path);
        result["files"] = files;
        result["solution"] = report.solution_path;
        return result;
      },
      py::arg("out"), py::arg("graphs") = 10, py::arg("seed") = 0, py::arg("collections") = std::vector<std::string>{},
      py::arg("threads") = 1,
      "A synthetic TpuGraphs tree in `out`, as `graphcost gen` writes it (the same bytes for the same seed): its files and solution.");
}

}  // namespace graphcost::python
