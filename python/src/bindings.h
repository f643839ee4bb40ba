// What the binding files of the Python package share (python/src/: one file per area of the API;
// docs/python.md): the Graph holder, JSON to Python, and each area's bind function.
#pragma once

#include <memory>

#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"

namespace graphcost::python {

// Graphs are shared between Python objects and the arrays viewing them.
using GraphPtr = std::shared_ptr<TpuGraph>;

// A JSON value (graphcost's reports) as Python dicts, lists and numbers (through json.loads: the
// same values the CLI's --json prints).
pybind11::object json_to_python(const nlohmann::json& value);

void bind_errors(pybind11::module_& m);
void bind_graph(pybind11::module_& m);
void bind_metrics(pybind11::module_& m);
void bind_model(pybind11::module_& m);
void bind_simulation(pybind11::module_& m);
void bind_tune(pybind11::module_& m);

}  // namespace graphcost::python
