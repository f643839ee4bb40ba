// graphcost._tune: the tuning loop (tune/tuner.h) with a Python function as the oracle. The package's
// tune() (python/graphcost/__init__.py) wraps the user's measure(config) -> seconds with the
// timeout and turns exceptions and non-finite values into failed measurements; here the loop runs
// with the GIL released and takes it only to call that wrapper.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include "bindings.h"
#include "common/input_error.h"
#include "tune/tune_report.h"
#include "tune/tuner.h"
#include "tune/tuning_journal.h"

namespace py = pybind11;

namespace graphcost::python {
namespace {

// The journal's line, with every key present whatever the status (seconds None unless ok, message
// "" when there is none): a notebook indexes them without checking.
py::object measurement_dict(const Measurement& m) {
  nlohmann::json line = measurement_json(m);
  if (!line.contains("seconds")) line["seconds"] = nullptr;
  if (!line.contains("message")) line["message"] = "";
  return json_to_python(line);
}

py::dict tune(const py::object& target_or_path, const py::object& measure, int budget, int per_round, const std::string& strategy,
              const std::string& init, const std::string& learner, const std::shared_ptr<CostModel>& model, uint64_t seed, int candidates,
              double explore, const py::object& progress, const std::string& journal_path) {
  TuningTarget target;
  if (py::isinstance<TpuGraph>(target_or_path)) {
    target = tuning_target_from_graph(target_or_path.cast<const TpuGraph&>(), target_or_path.cast<const TpuGraph&>().source);
  } else {
    const std::string path = target_or_path.cast<std::string>();
    py::gil_scoped_release release;
    target = load_tuning_target(path, candidates, seed);
  }
  TuneOptions options;
  options.strategy = value_named(tune_strategy_names(), strategy, "strategy");
  options.learner.init = value_named(gnn_init_names(), init, "init");
  options.learner.kind = value_named(learner_names(), learner, "learner");
  options.budget = budget;
  options.per_round = per_round;
  options.seed = seed;
  options.explore = explore;
  bool interrupted = false;
  Oracle oracle;
  if (measure.is_none()) {
    oracle = replay_oracle(target);
  } else {
    oracle.name = "python";
    oracle.measure = [&](int32_t config) {
      py::gil_scoped_acquire acquire;
      Measurement m;
      m.config = config;
      const py::tuple answer = measure(json_to_python(describe_config(target, config)));  // (status, seconds, message)
      const std::string status = answer[0].cast<std::string>();
      m.message = answer[2].cast<std::string>();
      if (status == "stopped") {
        interrupted = true;
        m.status = MeasurementStatus::Stopped;
        return m;
      }
      m.status = value_named(measurement_status_names(), status, "status");
      if (m.ok()) {
        m.seconds = answer[1].cast<double>();
        m.runs = {m.seconds};
      }
      return m;
    };
  }
  if (std::isnan(options.explore)) options.explore = default_explore(target);  // the header holds the share the run uses
  Tuner tuner(target, oracle, model.get(), options);
  // The journal: the CLI's format (tune/tuning_journal.h); an existing one is resumed.
  std::unique_ptr<TuningJournalWriter> journal;
  if (!journal_path.empty()) {
    JournalRun run;
    run.oracle = oracle.name;
    run.candidates = candidates;
    const nlohmann::json header = tuning_journal_header(target, options, run);
    const bool resume = std::filesystem::exists(journal_path);
    if (resume) {
      const TuningJournal earlier = read_tuning_journal(journal_path);
      check_same_run(journal_path, earlier.header, header);
      tuner.restore(earlier.measurements);
    }
    journal = std::make_unique<TuningJournalWriter>(journal_path, header, resume);
  }
  std::vector<RoundReport> rounds;
  while (!tuner.done() && !interrupted) {
    RoundReport report;
    {
      py::gil_scoped_release release;
      report = tuner.run_round([&](const Measurement& m) { if (journal) journal->append(m); }, [&] {
        py::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() != 0) {
          PyErr_Clear();
          interrupted = true;
        }
        return interrupted;
      });
    }
    rounds.push_back(report);
    if (!progress.is_none()) {  // False stops the run (the package's wrapper returns it when the callback raised)
      const py::object go_on = progress(json_to_python(round_report_json(report)));
      if (!go_on.is_none() && !go_on.cast<bool>()) interrupted = true;
    }
  }
  // The run as `tune --json` reports it (tune/tune_report.h), plus what only Python holds.
  py::dict result = json_to_python(tune_summary_json(tuner, oracle.name, rounds, interrupted));
  py::list measurements;
  for (const Measurement& m : tuner.measurements()) measurements.append(measurement_dict(m));
  result["measurements"] = measurements;
  result["costs"] = py::array_t<float>(static_cast<py::ssize_t>(tuner.costs().size()), tuner.costs().data());
  result["measured"] = std::make_shared<TpuGraph>(tuner.measured_graph());
  return result;
}

}  // namespace

void bind_tune(py::module_& m) {
  m.def("_tune", &tune, py::arg("target"), py::arg("measure"), py::arg("budget"), py::arg("per_round"), py::arg("strategy"),
        py::arg("init"), py::arg("learner"), py::arg("model"), py::arg("seed"), py::arg("candidates"), py::arg("explore"),
        py::arg("progress"), py::arg("journal"), "The tuning loop; use graphcost.tune(), which wraps the measure function.");
}

}  // namespace graphcost::python
