// graphcost.Model (a CostModel file: predict, rank, explain) and graphcost.train (the CLI's train,
// with a progress callback; Ctrl-C stops it after the epoch in hand, keeping the checkpoint).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>

#include "bindings.h"
#include "common/input_error.h"
#include "io/byte_source.h"
#include "metrics/ranking_metrics.h"
#include "model/config_explainer.h"
#include "model/cost_model.h"
#include "model/layout_inference.h"
#include "train/trainer.h"

namespace py = pybind11;

namespace graphcost::python {
namespace {

using ModelPtr = std::shared_ptr<CostModel>;

void check_kind(const CostModel& model, const TpuGraph& graph) {
  if (model.config().kind != graph.kind) {
    throw InputError(graph.source, "kind", std::string("a ") + graph_kind_name(model.config().kind) + " graph for this model",
                     std::string("a ") + graph_kind_name(graph.kind) + " graph");
  }
}

py::array_t<float> predict(CostModel& model, const TpuGraph& graph, const std::optional<std::vector<int32_t>>& configs, int threads) {
  check_kind(model, graph);
  std::vector<float> costs;
  {
    py::gil_scoped_release release;
    const PreparedGraph prepared = model.prepare(graph);
    if (configs) {
      for (const int32_t c : *configs) {
        if (c < 0 || c >= graph.config_count)
          throw InputError(graph.source, "configs", "indices below " + std::to_string(graph.config_count), std::to_string(c));
      }
      costs = model.predict(prepared, *configs, 64, threads);
    } else {
      costs = model.predict(prepared, 64, threads);
    }
  }
  return py::array_t<float>(static_cast<py::ssize_t>(costs.size()), costs.data());
}

// The node states after the model's message layers for one config: (the original node ids of the
// model's view of the graph, nodes x hidden float32).
py::tuple embed(CostModel& model, const TpuGraph& graph, int32_t config) {
  check_kind(model, graph);
  if (config < 0 || config >= graph.config_count)
    throw InputError(graph.source, "config", "an index below " + std::to_string(graph.config_count), std::to_string(config));
  std::vector<int32_t> nodes;
  nn::Matrix states;
  {
    py::gil_scoped_release release;
    const PreparedGraph prepared = model.prepare(graph);
    nn::Tape tape;
    states = model.node_states(tape, prepared, {config}).value();
    nodes = prepared.view.nodes;
  }
  py::array_t<float> out({static_cast<py::ssize_t>(states.rows()), static_cast<py::ssize_t>(states.cols())});
  std::copy(states.data(), states.data() + states.size(), out.mutable_data());
  return py::make_tuple(py::array_t<int32_t>(static_cast<py::ssize_t>(nodes.size()), nodes.data()), out);
}

py::dict explain(CostModel& model, const TpuGraph& graph, int32_t config) {
  check_kind(model, graph);
  if (graph.kind != GraphKind::Layout || graph.configurable_count() == 0) {
    throw InputError(graph.source, "graph", "a layout graph with configurable nodes (explanations are per node)",
                     graph_kind_name(graph.kind));
  }
  if (config < 0 || config >= graph.config_count)
    throw InputError(graph.source, "config", "an index below " + std::to_string(graph.config_count), std::to_string(config));
  NodeContributions result;
  {
    py::gil_scoped_release release;
    const PreparedGraph prepared = model.prepare(graph);
    const LayoutInference inference(model, prepared);
    ContributionJob job(inference, layout_config_values(graph, config));
    while (!job.step(64)) {
    }
    result = job.result();
  }
  std::vector<int32_t> nodes;
  for (const int32_t slot : result.slots) nodes.push_back(graph.configurable_nodes[static_cast<size_t>(slot)]);
  py::dict out;
  out["nodes"] = nodes;
  out["contribution"] = result.contribution;
  out["cost"] = result.reference_cost;
  out["base_cost"] = result.other_cost;
  return out;
}

// The CLI's `train` (train/trainer.h). progress(report dict) may return False to stop; Ctrl-C
// stops after the epoch in hand (the checkpoint in `out` is kept), then KeyboardInterrupt rises.
py::dict train(const std::string& data, const std::string& collection, const std::string& out, int epochs, int steps_per_epoch,
               int configs_per_step, int hidden, int layers, int hops, const std::string& loss, float learning_rate, uint64_t seed,
               bool resume, const std::string& init, bool relative_configs, const py::object& progress,
               const std::vector<std::string>& architecture_given, bool overwrite) {
  TrainOptions options;
  options.data = data;
  options.collection = collection;
  options.out = out;
  options.epochs = epochs;
  options.steps_per_epoch = steps_per_epoch;
  options.configs_per_step = configs_per_step;
  options.model.hidden = hidden;
  options.model.layers = layers;
  options.model.hops = hops;
  options.model.relative_configs = relative_configs;
  options.model.seed = seed;
  options.loss = value_named(ranking_loss_names(), loss, "loss");
  options.learning_rate = learning_rate;
  options.resume = resume;
  options.init = init;
  options.architecture_given = architecture_given;
  options.overwrite = overwrite;
  bool interrupted = false;
  py::object error;  // an exception the callback raised, re-raised once training has stopped
  py::list reports;
  const TrainProgress callback = [&](const EpochReport& report, int total) {
    py::gil_scoped_acquire acquire;
    py::dict entry;
    entry["epoch"] = report.epoch;
    entry["epochs"] = total;
    entry["loss"] = report.train_loss;
    entry["valid_metric"] = report.valid_metric;
    entry["seconds"] = report.seconds;
    reports.append(entry);
    if (PyErr_CheckSignals() != 0) {  // Ctrl-C
      PyErr_Clear();
      interrupted = true;
      return false;
    }
    if (progress.is_none()) return true;
    try {
      const py::object go_on = progress(entry);
      return go_on.is_none() || go_on.cast<bool>();
    } catch (py::error_already_set& e) {
      error = py::reinterpret_borrow<py::object>(e.value());
      return false;
    }
  };
  TrainResult result;
  {
    py::gil_scoped_release release;
    result = train_model(options, callback);
  }
  if (interrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  if (error) {
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    throw py::error_already_set();
  }
  py::dict summary;
  summary["epochs"] = reports;
  summary["train_graphs"] = result.train_graphs;
  summary["valid_graphs"] = result.valid_graphs;
  summary["out"] = out;
  return summary;
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<CostModel, ModelPtr>(m, "Model", "A graphcost cost model (a model .npz): lower cost = predicted faster.")
      .def_static(
          "load",
          [](const std::string& path) {
            py::gil_scoped_release release;
            return std::make_shared<CostModel>(CostModel::load(path));
          },
          py::arg("path"), "Reads a model file (docs/model-format.md); InputError on a bad one.")
      .def(
          "save",
          [](const CostModel& model, const std::string& path) {
            py::gil_scoped_release release;
            model.save(path);
          },
          py::arg("path"), "Writes the model file (docs/model-format.md), atomically: Model.load reads it back.")
      .def_static(
          "_from_bytes",
          [](const py::bytes& bytes) {
            const std::string data = bytes;
            py::gil_scoped_release release;
            return std::make_shared<CostModel>(
                CostModel::load(ByteSource::own_memory("a pickled model", std::vector<uint8_t>(data.begin(), data.end()))));
          },
          py::arg("data"), "A model from a model file's bytes (unpickling).")
      .def_property_readonly("kind", [](const CostModel& model) { return std::string(graph_kind_name(model.config().kind)); })
      .def_property_readonly(
          "config", [](const CostModel& model) { return json_to_python(model.config().to_json()); }, "the hyperparameters")
      .def("predict", &predict, py::arg("graph"), py::arg("configs") = std::nullopt, py::arg("threads") = 1,
           "The cost of every config (or the listed ones, in their order): float32, as `graphcost predict --costs` writes them.")
      .def(
          "rank",
          [](CostModel& model, const TpuGraph& graph, int threads) {
            const py::array_t<float> costs = predict(model, graph, std::nullopt, threads);
            const std::vector<float> values(costs.data(), costs.data() + costs.size());
            const std::vector<int32_t> order = order_by_cost(values);
            return py::array_t<int32_t>(static_cast<py::ssize_t>(order.size()), order.data());
          },
          py::arg("graph"), py::arg("threads") = 1, "Config indices, predicted fastest first (ties in index order).")
      .def("embed", &embed, py::arg("graph"), py::arg("config") = 0,
           "Node embeddings: the node states after the message layers for one config, as (nodes, states): the original "
           "node ids the model sees (a layout model keeps the configurable nodes and their neighbourhood: hops), and a "
           "float32 (len(nodes), hidden) array, row i the state of node nodes[i].")
      .def("explain", &explain, py::arg("graph"), py::arg("config"),
           "Layout: each configurable node's share of the config's predicted cost against the base config (occlusion): "
           "{'nodes', 'contribution' (cost units, positive is slower), 'cost', 'base_cost'}.");
  m.def("train", &train, py::arg("data"), py::arg("collection"), py::arg("out"), py::arg("epochs") = 10, py::arg("steps_per_epoch") = 100,
        py::arg("configs_per_step") = 16, py::arg("hidden") = 64, py::arg("layers") = 2, py::arg("hops") = 1, py::arg("loss") = "listmle",
        py::arg("learning_rate") = 2e-3f, py::arg("seed") = 0, py::arg("resume") = false, py::arg("init") = "",
        py::arg("relative_configs") = false, py::arg("progress") = py::none(), py::arg("architecture_given") = std::vector<std::string>{},
        py::arg("overwrite") = true,
        R"doc(Trains a model on a collection of an npz tree, as `graphcost train` does (a checkpoint each epoch
in `out`). progress(report) is called after each epoch with {'epoch', 'epochs', 'loss',
'valid_metric', 'seconds'}; returning False stops. Ctrl-C stops after the epoch in hand, keeping the
checkpoint (resume=True continues), then raises KeyboardInterrupt.)doc");
}

}  // namespace graphcost::python
