#include "python_learner.h"

#include <pybind11/numpy.h>

#include <cmath>

#include "common/input_error.h"

namespace py = pybind11;

namespace graphcost::python {

PythonLearner::PythonLearner(const TpuGraph& graph, py::object estimator)
    : PythonLearner(graph, std::move(estimator), std::make_shared<const std::vector<XgboostLearner::Column>>(varying_columns(graph))) {}

PythonLearner::PythonLearner(const TpuGraph& graph, py::object estimator,
                             std::shared_ptr<const std::vector<XgboostLearner::Column>> columns)
    : graph_(graph), columns_(std::move(columns)) {
  py::gil_scoped_acquire acquire;
  for (const char* method : {"fit", "predict"}) {
    if (!py::hasattr(estimator, method) || !PyCallable_Check(estimator.attr(method).ptr())) {
      throw InputError("", "learner", "an object with fit(X, y) and predict(X) (scikit-learn's protocol)",
                       py::str(py::type::of(estimator)).cast<std::string>() + " without " + method + "()");
    }
  }
  estimator_ = new py::object(std::move(estimator));
}

PythonLearner::~PythonLearner() {
  py::gil_scoped_acquire acquire;
  delete estimator_;
}

py::object PythonLearner::features(const std::vector<int32_t>& configs) const {
  const size_t width = std::max<size_t>(1, columns_->size());
  py::array_t<float> x({static_cast<py::ssize_t>(configs.size()), static_cast<py::ssize_t>(width)});
  float* out = x.mutable_data();
  std::fill(out, out + configs.size() * width, 0.0f);
  for (size_t i = 0; i < configs.size(); ++i) {
    for (size_t j = 0; j < columns_->size(); ++j) out[i * width + j] = config_value_at(graph_, configs[i], (*columns_)[j]);
  }
  return std::move(x);
}

void PythonLearner::fit(const Observations& observed) {
  py::gil_scoped_acquire acquire;
  py::array_t<double> y(static_cast<py::ssize_t>(observed.seconds.size()));
  for (size_t i = 0; i < observed.seconds.size(); ++i) y.mutable_data()[i] = std::log(observed.seconds[i]);
  estimator_->attr("fit")(features(observed.configs), y);
  fitted_ = true;
}

std::vector<float> PythonLearner::predict(const std::vector<int32_t>& configs) const {
  py::gil_scoped_acquire acquire;
  const py::object answer = estimator_->attr("predict")(features(configs));
  const auto costs = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(answer);
  if (!costs || costs.size() != static_cast<py::ssize_t>(configs.size())) {
    throw InputError("", "learner.predict(X)", std::to_string(configs.size()) + " numbers (one per row of X)",
                     costs ? std::to_string(costs.size()) + " values" : "not an array of numbers");
  }
  std::vector<float> out(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!std::isfinite(costs.data()[i]))
      throw InputError("", "learner.predict(X)", "finite numbers", "row " + std::to_string(i) + ": " + std::to_string(costs.data()[i]));
    out[i] = static_cast<float>(costs.data()[i]);
  }
  return out;
}

std::unique_ptr<Learner> PythonLearner::fresh() const {
  py::gil_scoped_acquire acquire;
  py::object copy = py::module_::import("copy").attr("deepcopy")(*estimator_);
  return std::unique_ptr<Learner>(new PythonLearner(graph_, std::move(copy), columns_));
}

nlohmann::json PythonLearner::describe() const {
  py::gil_scoped_acquire acquire;
  const py::handle type = py::type::of(*estimator_);
  return {{"learner", "python"},
          {"estimator", type.attr("__module__").cast<std::string>() + "." + type.attr("__qualname__").cast<std::string>()}};
}

void PythonLearner::save(const std::string& path, const std::vector<std::string>&) const {
  throw InputError(path, "learner", "xgboost, ridge, gnn, weighed or auto (a Python learner is saved by Python: pickle it)", "python");
}

}  // namespace graphcost::python
