// graphcost._Tuner: the tuning loop (tune/tuner.h) asked and told from Python (graphcost.Tuner and
// graphcost.tune in python/graphcost/tuning.py drive it). ask() learns and chooses with the GIL
// released; every measurement told is journaled (tune/tuning_journal.h, the CLI's format) before
// tell returns, so a run killed at any point resumes with nothing measured twice.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include "bindings.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "hlo/hlo_layout_writer.h"
#include "python_learner.h"
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

// One run: its target (owned: the Tuner holds a reference), the tuner, its journal and the rounds
// it reported.
class PythonTuner {
 public:
  PythonTuner(const py::object& target_or_path, const std::string& oracle, int budget, int per_round, const std::string& strategy,
              const std::string& init, const std::string& learner, const std::shared_ptr<CostModel>& model, uint64_t seed, int candidates,
              double explore, const std::string& journal_path, const py::object& estimator, const std::string& kernel)
      : model_(model), oracle_name_(oracle) {
    if (py::isinstance<TpuGraph>(target_or_path)) {
      const TpuGraph& graph = target_or_path.cast<const TpuGraph&>();
      target_ = std::make_unique<TuningTarget>(tuning_target_from_graph(graph, graph.source));
    } else {
      const std::string path = target_or_path.cast<std::string>();
      py::gil_scoped_release release;
      target_ = std::make_unique<TuningTarget>(load_tuning_target(path, candidates, seed, "", kernel));
    }
    TuneOptions options;
    options.strategy = value_named(tune_strategy_names(), strategy, "strategy");
    options.learner.init = value_named(gnn_init_names(), init, "init");
    options.learner.kind = value_named(learner_names(), learner, "learner");
    options.budget = budget;
    options.per_round = per_round;
    options.seed = seed;
    options.explore = std::isnan(explore) ? default_explore(*target_) : explore;  // the header holds the share the run uses
    if (oracle == "replay") replay_ = replay_oracle(*target_);                    // the tuner's truth for its replay figures, and replay()
    Oracle named = replay_;
    named.name = oracle;
    std::unique_ptr<Learner> custom;  // learner "python": the estimator (python_learner.h)
    if (options.learner.kind == LearnerKind::Python) {
      if (estimator.is_none()) throw InputError("", "learner", "an object with fit(X, y) and predict(X)", "the name python");
      custom = std::make_unique<PythonLearner>(target_->graph, estimator);
    }
    tuner_ = std::make_unique<Tuner>(*target_, named, model_.get(), options, std::move(custom));
    if (!journal_path.empty()) {
      JournalRun run;
      run.oracle = oracle;
      run.candidates = candidates;
      run.kernel = kernel;
      const nlohmann::json header = tuning_journal_header(*target_, tuner_->options(), run);
      const bool resume = std::filesystem::exists(journal_path);
      if (resume) {
        const TuningJournal earlier = read_tuning_journal(journal_path);
        check_same_run(journal_path, earlier.header, header);
        tuner_->restore(earlier.measurements);
      }
      journal_ = std::make_unique<TuningJournalWriter>(journal_path, header, resume);
    }
  }

  py::list ask(int n) {
    if (n < 0) throw InputError("", "n", "0 or more configs", std::to_string(n));
    std::vector<int32_t> configs;
    {
      py::gil_scoped_release release;
      configs = tuner_->ask(static_cast<size_t>(n));
    }
    collect_reports();
    py::list out;
    for (const int32_t c : configs) out.append(json_to_python(describe_config(*target_, c)));
    return out;
  }

  py::object tell(int32_t config, const std::string& status, double seconds, const std::string& message) {
    Measurement m;
    m.config = config;
    m.status = value_named(measurement_status_names(), status, "status");
    m.message = message;
    if (m.ok()) {
      if (!(std::isfinite(seconds) && seconds > 0))
        throw InputError("", "seconds", "a positive finite number of seconds", std::to_string(seconds));
      m.seconds = seconds;
      m.runs = {seconds};
    }
    const Measurement& recorded = tuner_->tell(std::move(m));
    if (journal_) journal_->append(recorded);  // on disk (fsync) before tell returns
    return measurement_dict(recorded);
  }

  // The file's recorded runtime of `config` (replay): (status, seconds, message).
  py::tuple replay(int32_t config) {
    if (!replay_.measure) throw InputError(target_->path, "oracle", "replay (a file with recorded runtimes)", oracle_name_);
    const Measurement m = replay_.measure(config);
    return py::make_tuple(name_of(measurement_status_names(), m.status), m.ok() ? m.seconds : 0.0, m.message);
  }

  bool settle() {
    bool ended = false;
    {
      py::gil_scoped_release release;
      ended = tuner_->settle();
    }
    collect_reports();
    return ended;
  }

  // The run as `tune --json` reports it (tune/tune_report.h), plus what only Python holds.
  py::dict result(bool interrupted) const {
    py::dict out = json_to_python(tune_summary_json(*tuner_, oracle_name_, rounds_, interrupted));
    py::list measurements;
    for (const Measurement& m : tuner_->measurements()) measurements.append(measurement_dict(m));
    out["measurements"] = measurements;
    out["costs"] = costs();
    out["measured"] = std::make_shared<TpuGraph>(tuner_->measured_graph());
    return out;
  }

  py::array_t<float> costs() const {
    const std::vector<float>& costs = tuner_->costs();
    return py::array_t<float>(static_cast<py::ssize_t>(costs.size()), costs.data());
  }

  py::list rounds() const {
    py::list out;
    for (const RoundReport& r : rounds_) out.append(json_to_python(round_report_json(r)));
    return out;
  }

  py::list measurements() const {
    py::list out;
    for (const Measurement& m : tuner_->measurements()) out.append(measurement_dict(m));
    return out;
  }

  void save_learner(const std::string& path) const {
    if (tuner_->learner() == nullptr || !tuner_->learner()->fitted())
      throw InputError(path, "learner", "a fitted learner (online, after two ok measurements)", "none");
    tuner_->learner()->save(path, {target_->path});
  }

  // The module's text with `config`'s layouts (module targets read from HLO text).
  void write_config(int32_t config, const std::string& path) const {
    if (!writes_modules())
      throw InputError(target_->path, "target", "a module read from HLO text (its configs are layouts written into it)", "another target");
    if (config < 0 || config >= target_->graph.config_count)
      throw InputError(target_->path, "config", "an index below " + std::to_string(target_->graph.config_count), std::to_string(config));
    write_file_atomically(path, module_text_with_layouts(*target_->module, target_->computation_first, target_->graph, config));
  }

  bool writes_modules() const { return target_->module && target_->module->from_text && target_->graph.kind == GraphKind::Layout; }
  Tuner& tuner() { return *tuner_; }
  const std::string& journal() const {
    static const std::string none;
    return journal_ ? journal_->path() : none;
  }

 private:
  void collect_reports() {
    for (RoundReport& r : tuner_->take_reports()) rounds_.push_back(std::move(r));
  }

  std::shared_ptr<CostModel> model_;
  std::string oracle_name_;
  std::unique_ptr<TuningTarget> target_;
  std::unique_ptr<Tuner> tuner_;
  std::unique_ptr<TuningJournalWriter> journal_;
  Oracle replay_;
  std::vector<RoundReport> rounds_;
};

}  // namespace

void bind_tune(py::module_& m) {
  py::class_<PythonTuner>(m, "_Tuner", "The tuning loop asked and told; use graphcost.Tuner.")
      .def(py::init<const py::object&, const std::string&, int, int, const std::string&, const std::string&, const std::string&,
                    const std::shared_ptr<CostModel>&, uint64_t, int, double, const std::string&, const py::object&, const std::string&>(),
           py::arg("target"), py::arg("oracle"), py::arg("budget"), py::arg("per_round"), py::arg("strategy"), py::arg("init"),
           py::arg("learner"), py::arg("model"), py::arg("seed"), py::arg("candidates"), py::arg("explore"), py::arg("journal"),
           py::arg("estimator"), py::arg("kernel"))
      .def("ask", &PythonTuner::ask, py::arg("n"))
      .def("tell", &PythonTuner::tell, py::arg("config"), py::arg("status"), py::arg("seconds"), py::arg("message"))
      .def(
          "release", [](PythonTuner& t, int32_t config) { t.tuner().release(config); }, py::arg("config"))
      .def("replay", &PythonTuner::replay, py::arg("config"))
      .def("settle", &PythonTuner::settle)
      .def("result", &PythonTuner::result, py::arg("interrupted"))
      .def("save_learner", &PythonTuner::save_learner, py::arg("path"))
      .def("write_config", &PythonTuner::write_config, py::arg("config"), py::arg("path"))
      .def_property_readonly("done", [](PythonTuner& t) { return t.tuner().done(); })
      .def_property_readonly("writes_modules", &PythonTuner::writes_modules)
      .def_property_readonly("asked", [](PythonTuner& t) { return t.tuner().asked(); })
      .def_property_readonly("costs", &PythonTuner::costs)
      .def_property_readonly("rounds", &PythonTuner::rounds)
      .def_property_readonly("measurements", &PythonTuner::measurements)
      .def_property_readonly("candidates", [](PythonTuner& t) { return t.tuner().target().graph.config_count; })
      .def_property_readonly("fingerprint", [](PythonTuner& t) { return t.tuner().target().fingerprint; })
      .def_property_readonly("journal", &PythonTuner::journal)
      .def_property_readonly("learner", [](PythonTuner& t) {
        const Learner* learner = t.tuner().learner();
        return learner != nullptr && learner->fitted() ? json_to_python(learner->describe()) : py::object(py::none());
      });
}

}  // namespace graphcost::python
