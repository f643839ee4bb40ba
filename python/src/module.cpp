// The extension module `graphcost._graphcost`: graphcost_core bound with pybind11. The package's
// Python layer (python/graphcost/__init__.py) re-exports it with the parts written in Python.
#include <pybind11/pybind11.h>

#include <Eigen/Core>

#include "bindings.h"
#include "common/heap_tuning.h"
#include "common/input_error.h"
#include "common/internal_error.h"
#include "common/io_error.h"

namespace py = pybind11;

namespace graphcost::python {

py::object json_to_python(const nlohmann::json& value) { return py::module_::import("json").attr("loads")(value.dump()); }

void bind_errors(py::module_& m) {
  // graphcost's three error kinds (docs/architecture.md, "One error policy"), as Python classes:
  // InputError keeps the file, field, expected and actual value as attributes.
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<IoError> io_error(m, "IoError", PyExc_OSError);
  static py::exception<InternalError> internal_error(m, "InternalError", PyExc_RuntimeError);
  input_error.doc() = "Bad input: names the file, the field, the expected and the actual value (attributes of the same names).";
  io_error.doc() = "The machine refused a read or write (disk full, permissions).";
  internal_error.doc() = "A broken invariant inside graphcost: please report it.";
  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer) std::rethrow_exception(pointer);
    } catch (const InputError& e) {
      input_error(e.what());
      PyObject *type, *value, *trace;
      PyErr_Fetch(&type, &value, &trace);
      PyErr_NormalizeException(&type, &value, &trace);
      py::handle instance(value);
      instance.attr("file") = e.file();
      instance.attr("field") = e.field();
      instance.attr("expected") = e.expected();
      instance.attr("actual") = e.actual();
      PyErr_Restore(type, value, trace);
    } catch (const IoError& e) {
      // An OSError as Python's own: IoError(errno, message, filename) sets .errno, .strerror, .filename.
      const py::object type = py::reinterpret_borrow<py::object>(io_error.ptr());
      const py::object instance = type(e.system_error() != 0 ? py::object(py::int_(e.system_error())) : py::object(py::none()),
                                       py::str(e.what()), py::str(e.path()));
      PyErr_SetObject(io_error.ptr(), instance.ptr());
    } catch (const InternalError& e) {
      internal_error(e.what());
    }
  });
}

}  // namespace graphcost::python

PYBIND11_MODULE(_graphcost, m) {
  m.doc() = "graphcost's core (C++), bound with pybind11: see the package graphcost.";
  // As the CLI's mains do: the model's multi-megabyte matrices stay in glibc's heap instead of
  // being mapped and unmapped every step (without it, training in Python ran 7x slower: page
  // faults). It sets glibc's mmap threshold for the whole interpreter, which only keeps large
  // blocks in the heap (docs/python.md).
  graphcost::keep_large_allocations_in_heap();
  // Which CPU this build was compiled for (-march: x86-64-v2, x86-64-v3, x86-64-v4 or native) and
  // the vector instructions Eigen's matrix kernels use in it: graphcost.build_info() reports them.
  m.attr("_march") = GRAPHCOST_MARCH;
  m.attr("_simd") = Eigen::SimdInstructionSetsInUse();
  graphcost::python::bind_errors(m);
  graphcost::python::bind_graph(m);
  graphcost::python::bind_metrics(m);
  graphcost::python::bind_model(m);
  graphcost::python::bind_simulation(m);
  graphcost::python::bind_tune(m);
}
