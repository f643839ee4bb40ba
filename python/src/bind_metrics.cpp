// Metrics and scoring as the CLI computes them: Kendall tau-b (scipy's definition), top-k slowdown,
// the Kaggle tile score, and a submission scored against a solution (graphcost-eval score --json).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>

#include "bindings.h"
#include "common/input_error.h"
#include "data/collection_files.h"
#include "data/dataset_path.h"
#include "metrics/kendall_tau.h"
#include "metrics/ranking_metrics.h"
#include "scoring/scorer.h"
#include "scoring/solution.h"
#include "scoring/submission.h"

namespace py = pybind11;

namespace graphcost::python {
namespace {

std::vector<double> doubles(const py::array_t<double, py::array::c_style | py::array::forcecast>& values, const char* name) {
  if (values.ndim() != 1) throw InputError("", name, "a 1-D sequence of numbers", std::to_string(values.ndim()) + " dimensions");
  return std::vector<double>(values.data(), values.data() + values.size());
}

// A sequence of config indices: integers only (a float is a TypeError: truncating 0.7 to 0 would
// score another ranking than the one given); the range is checked by the metric itself.
std::vector<int32_t> order_of(const py::object& order) {
  const py::array array = py::array::ensure(order);
  if (!array) throw py::type_error("order: expected a sequence of config indices (integers)");
  if (array.ndim() != 1) throw InputError("", "order", "a 1-D sequence of config indices", std::to_string(array.ndim()) + " dimensions");
  if (array.size() > 0 && array.dtype().kind() != 'i' && array.dtype().kind() != 'u')
    throw py::type_error("order: expected integer config indices, got dtype " + py::str(array.dtype()).cast<std::string>());
  const auto indices = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(array);
  std::vector<int32_t> out;
  for (py::ssize_t i = 0; i < indices.size(); ++i) {
    const int64_t c = indices.data()[i];
    out.push_back(c < 0 || c > INT32_MAX ? -1 : static_cast<int32_t>(c));  // out of range either way: the metric says so
  }
  return out;
}

}  // namespace

void bind_metrics(py::module_& m) {
  m.def(
      "kendall_tau",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& x,
         const py::array_t<double, py::array::c_style | py::array::forcecast>& y) {
        const std::vector<double> a = doubles(x, "x"), b = doubles(y, "y");
        if (a.size() != b.size()) throw InputError("", "y", std::to_string(a.size()) + " values (as x)", std::to_string(b.size()));
        py::gil_scoped_release release;
        return kendall_tau_b(a.data(), b.data(), a.size());
      },
      py::arg("x"), py::arg("y"),
      "Kendall tau-b of x against y, exactly as scipy.stats.kendalltau computes it (O(n log n)); NaN when undefined.");
  m.def(
      "slowdown_at_k",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& runtimes, const py::object& order, int k) {
        const std::vector<double> r = doubles(runtimes, "runtimes");
        return slowdown_at_k(r, order_of(order), k);
      },
      py::arg("runtimes"), py::arg("order"), py::arg("k") = 5,
      "The best runtime among the first k configs of `order` over the best runtime of all (1 is perfect).");
  m.def(
      "tile_score",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& runtimes, const py::object& order) {
        const std::vector<double> r = doubles(runtimes, "runtimes");
        return tile_score(r, order_of(order), 5);
      },
      py::arg("runtimes"), py::arg("order"), "The Kaggle tile score: 2 - slowdown_at_k(k=5); 1 is perfect.");
  m.def(
      "_collection_files",
      [](const std::string& data, const std::string& collection, const std::string& split) {
        py::gil_scoped_release release;
        return collection_files(data, collection, split);
      },
      py::arg("data"), py::arg("collection"), py::arg("split"), "The .npz files of a collection and split of a TpuGraphs tree.");
  m.def(
      "_kaggle_id", [](const std::string& path) { return parse_dataset_path(path).kaggle_id(); }, py::arg("path"),
      "The Kaggle submission ID of a file in a TpuGraphs tree (\"\" outside one).");
  m.def(
      "_write_submission",
      [](const std::string& path, const std::vector<std::pair<std::string, py::object>>& rankings) {
        std::vector<SubmissionRow> rows;
        for (const auto& [id, order] : rankings) rows.push_back({id, order_of(order)});
        for (const SubmissionRow& row : rows) {
          if (row.id.empty() || row.id.find_first_of(",\"\n\r") != std::string::npos)
            throw InputError(path, "ID", "a Kaggle ID without commas, quotes or line breaks", "'" + row.id + "'");
          for (const int32_t c : row.predicted_order) {
            if (c < 0) throw InputError(path, "TopConfigs of " + row.id, "config indices >= 0", std::to_string(c));
          }
        }
        py::gil_scoped_release release;
        write_submission_file(path, std::move(rows));
      },
      py::arg("path"), py::arg("rankings"), "Writes ID,TopConfigs rows (a Kaggle submission), atomically.");
  m.def(
      "score",
      [](const std::string& solution_path, const std::string& submission, const std::string& split, uint64_t seed, double public_fraction) {
        py::gil_scoped_release release;
        std::error_code error;
        const Solution solution = std::filesystem::is_directory(solution_path, error)
                                      ? solution_from_tree(solution_path, split, seed, public_fraction)
                                      : read_solution(solution_path);
        const SubmissionCheck check = check_submission_file(submission, solution);
        if (!check.valid()) throw InputError(submission, "submission", "a valid Kaggle submission", check.format_errors(submission));
        nlohmann::json report = score_report_json(score_submission(solution, check));
        report["status"] = "scored";  // as graphcost-eval score --json writes it
        py::gil_scoped_acquire acquire;
        return json_to_python(report);
      },
      py::arg("solution"), py::arg("submission"), py::arg("split") = "valid", py::arg("seed") = 0, py::arg("public_fraction") = 0.5,
      R"doc(A Kaggle submission (ID,TopConfigs CSV) scored against a solution: a solution.csv, or an npz tree
with its `split` and the Public/Private `seed` (as graphcost-eval score --solution). Returns the
report graphcost-eval score --json prints: public and private boards, per collection and graph.)doc");
}

}  // namespace graphcost::python
