#include "cli/tune_command.h"

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command_oracle.h"
#include "cli_options/named_option.h"
#include "cli_options/seed_option.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/units.h"
#include "simulator/hardware_profile.h"
#include "tune/tune_report.h"
#include "tune/tuning_journal.h"

namespace graphcost {
namespace {

// The first Ctrl-C stops the run after the measurement in hand (the outputs are written); a
// second one is the default: the process ends at once (the journal already holds every
// measurement made).
std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) {
  if (interrupted.exchange(true)) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}

std::string journal_path(const std::string& out) { return out + ".journal"; }

// Everything that shapes the run (tune/tuning_journal.h).
nlohmann::json journal_header(const TuneCommandOptions& options, const TuningTarget& target) {
  JournalRun run;
  run.oracle = name_of(oracle_kind_names(), options.oracle);
  if (options.oracle == OracleKind::Simulate) run.hardware = options.hardware;
  if (options.oracle == OracleKind::Command) run.repeats = options.repeats;
  run.candidates = options.candidates;
  run.model = options.model;
  run.warm_start = options.warm_start;
  run.kernel = options.kernel;
  run.measure = options.measure;
  return tuning_journal_header(target, options.tune, run);
}

Oracle make_oracle(const TuneCommandOptions& options, const TuningTarget& target) {
  switch (options.oracle) {
    case OracleKind::Replay:
      return replay_oracle(target);
    case OracleKind::Simulate:
      return simulate_oracle(target, hardware_profile(options.hardware));
    case OracleKind::Command: {
      CommandOracleOptions command;
      command.command = options.measure;
      command.timeout_seconds = options.measure_timeout;
      command.repeats = options.repeats;
      command.work_dir = options.out.empty() ? "graphcost-tune-measurements" : options.out + ".measurements";
      command.stop = [] { return interrupted.load(); };
      return command_oracle(target, command);
    }
    case OracleKind::Cpu:
      if (!options.cpu_oracle) throw InputError("--oracle cpu", "", "graphcost-cpu, the executable built with Halide", "another");
      return options.cpu_oracle(target, [] { return interrupted.load(); });
  }
  throw InputError("--oracle", "", "replay, simulate, command or cpu", "another");
}

std::string number(double value, const char* format) {
  if (!std::isfinite(value)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// "xgboost (cross-validated: xgboost 0.71, ridge 0.64)", "weighed (GNN's share 0.35)", "ridge".
std::string learner_summary(const nlohmann::json& learner) {
  std::string text = learner.value("learner", std::string());
  if (learner.contains("chosen")) {
    text += " chose " + learner["chosen"].get<std::string>() + " (cross-validated tau:";
    bool first = true;
    for (const auto& [name, tau] : learner["cross_validated_tau"].items()) {
      text += std::string(first ? " " : ", ") + name + " " + (tau.is_number() ? number(tau.get<double>(), "%.2f") : "-");
      first = false;
    }
    text += ")";
  }
  if (learner.contains("gnn_weight")) text += " (GNN's share " + number(learner["gnn_weight"].get<double>(), "%.2f") + ")";
  return text;
}

void print_round(const RoundReport& r, int budget, double elapsed) {
  std::string line = "round " + std::to_string(r.round) + ": " + std::to_string(r.measured) + "/" + std::to_string(budget) + " measured";
  if (r.failed > 0) line += " (" + std::to_string(r.failed) + " failed)";
  line += ", best " + format_duration(r.best_seconds);
  if (std::isfinite(r.config0_seconds) && std::isfinite(r.best_seconds))
    line += " (" + format_change(r.best_seconds / r.config0_seconds) + " vs config 0)";
  line += ", tau on the new ones before measuring " + number(r.out_of_sample_tau, "%.3f");
  if (std::isfinite(r.unmeasured_tau)) line += ", on the unmeasured " + number(r.unmeasured_tau, "%.3f");
  if (r.learner.is_object()) line += "; " + learner_summary(r.learner);
  const double per_measurement = r.measured > 0 ? elapsed / r.measured : 0;
  line += "; round " + number(r.seconds, "%.2fs") + " (learn " + number(r.learn_seconds, "%.2fs") + "), ETA " +
          number(per_measurement * (budget - r.measured), "%.0fs");
  std::fprintf(stderr, "%s\n", line.c_str());
}

// A space's measurements as a T4 results file: every measured config with its repeats, or how it
// failed (the file's own failure kind when replaying it).
void write_space_results(const TuneCommandOptions& options, const Tuner& tuner) {
  const ParameterSpace& space = *tuner.target().space;
  ParameterSpace measured = space;
  measured.configs.clear();
  measured.restrictions.clear();
  for (const Measurement& m : tuner.measurements()) {
    SpaceConfig config = space.configs[static_cast<size_t>(m.config)];
    if (m.ok()) {
      config.outcome = ConfigOutcome::Ok;
      config.seconds = m.seconds;
      config.repeats = m.runs;
    } else {
      const bool recorded = config.outcome != ConfigOutcome::Ok && config.outcome != ConfigOutcome::Unmeasured;
      config.outcome = recorded                                 ? config.outcome
                       : m.status == MeasurementStatus::Timeout ? ConfigOutcome::Timeout
                       : m.status == MeasurementStatus::Garbage ? ConfigOutcome::Correctness
                                                                : ConfigOutcome::Runtime;
      if (!recorded) config.repeats.clear();
    }
    measured.configs.push_back(std::move(config));
  }
  const std::string note = "graphcost tune of " + tuner.target().path + " (oracle " + name_of(oracle_kind_names(), options.oracle) +
                           ", strategy " + name_of(tune_strategy_names(), options.tune.strategy) + ", seed " +
                           std::to_string(options.tune.seed) + ")";
  write_file_atomically(options.out, t4_results_document(measured, note).dump(1) + "\n", {options.target});
}

void write_outputs(const TuneCommandOptions& options, const Tuner& tuner) {
  if (!options.out.empty() && tuner.target().space) {
    write_space_results(options, tuner);
  } else if (!options.out.empty()) {
    TpuGraph measured = tuner.measured_graph();
    if (measured.config_count >= 1) {
      std::ostringstream provenance;
      provenance << "graphcost tune of " << tuner.target().path << " (oracle " << name_of(oracle_kind_names(), options.oracle)
                 << ", strategy " << name_of(tune_strategy_names(), options.tune.strategy) << ", seed " << options.tune.seed
                 << "): " << measured.config_count << " measured configs";
      measured.provenance = provenance.str();
      save_tpu_graph(measured, options.out);
    } else {
      std::fprintf(stderr, "warning: no config measured without failure: %s not written\n", options.out.c_str());
    }
  }
  if (!options.costs_out.empty()) {
    std::vector<bool> measured(static_cast<size_t>(tuner.target().graph.config_count), false);
    for (const Measurement& m : tuner.measurements()) measured[static_cast<size_t>(m.config)] = true;
    std::ostringstream csv;
    csv.precision(9);
    csv << "config,predicted,measured\n";
    for (size_t c = 0; c < measured.size(); ++c) {
      csv << c << ',';
      if (!tuner.costs().empty()) csv << tuner.costs()[c];
      csv << ',' << (measured[c] ? 1 : 0) << '\n';
    }
    write_file_atomically(options.costs_out, csv.str(), {options.target});
  }
  if (!options.model_out.empty()) {
    if (tuner.learner() != nullptr && tuner.learner()->fitted()) {
      tuner.learner()->save(options.model_out, {options.target, options.model});
    } else {
      std::fprintf(stderr, "warning: no learner was fitted (strategy %s, or fewer than 2 measurements): %s not written\n",
                   name_of(tune_strategy_names(), options.tune.strategy).c_str(), options.model_out.c_str());
    }
  }
}

}  // namespace

int run_tune_command(const TuneCommandOptions& options) {
  if (options.oracle == OracleKind::Command && options.out.empty()) {
    throw InputError("--out", "", "a results file when measuring on hardware (each measurement is journaled beside it)", "none");
  }
  if (options.resume && options.out.empty()) throw InputError("--resume", "", "--out naming the run to continue", "none");
  if (!options.out.empty()) check_output_path(options.out, {options.target});
  if (!options.costs_out.empty()) check_output_path(options.costs_out, {options.target});
  if (!options.model_out.empty()) check_output_path(options.model_out, {options.target, options.model});
  const TuningTarget target = load_tuning_target(options.target, options.candidates, options.tune.seed, options.warm_start, options.kernel);
  TuneCommandOptions resolved = options;  // the journal's header holds the exploration the run uses
  if (std::isnan(resolved.tune.explore)) resolved.tune.explore = default_explore(target);
  std::unique_ptr<CostModel> model;
  if (!options.model.empty()) model = std::make_unique<CostModel>(CostModel::load(options.model));
  Oracle oracle = make_oracle(resolved, target);
  const std::function<std::string(int32_t)> confirm = oracle.confirm;  // a re-measurement of the best after the run (cpu)
  Tuner tuner(target, std::move(oracle), model.get(), resolved.tune);

  std::unique_ptr<TuningJournalWriter> journal;
  if (!options.out.empty()) {
    const nlohmann::json header = journal_header(resolved, target);
    if (options.resume) {
      const TuningJournal earlier = read_tuning_journal(journal_path(options.out));
      check_same_run(journal_path(options.out), earlier.header, header);
      if (earlier.dropped_partial_line)
        std::fprintf(stderr, "warning: the journal's last line was cut short (a kill): that measurement is made again\n");
      tuner.restore(earlier.measurements);
      const bool refits = tuner.resume_refits();
      if (!options.quiet) {
        std::fprintf(stderr, "resumed: %zu measurements from %s%s\n", earlier.measurements.size(), journal_path(options.out).c_str(),
                     refits ? " (first fitting again the models its rounds fitted, each from the one before)" : "");
      }
    }
    journal = std::make_unique<TuningJournalWriter>(journal_path(options.out), header, options.resume);
  }
  if (!options.quiet) {
    std::fprintf(stderr, "tuning %s: %d candidates, oracle %s, strategy %s, budget %d (%d a round)\n", printable(target.path).c_str(),
                 target.graph.config_count, name_of(oracle_kind_names(), options.oracle).c_str(),
                 name_of(tune_strategy_names(), options.tune.strategy).c_str(), options.tune.budget, options.tune.per_round);
  }
  interrupted = false;
  const auto previous = std::signal(SIGINT, on_interrupt);
  std::vector<RoundReport> rounds;
  const auto start = std::chrono::steady_clock::now();
  try {
    while (!tuner.done() && !interrupted) {
      const RoundReport report = tuner.run_round(
          [&](const Measurement& m) {
            if (journal) journal->append(m);
            if (!options.quiet && !m.ok()) {
              std::fprintf(stderr, "  config %d: %s (%s), kept as a failed measurement\n", m.config,
                           name_of(measurement_status_names(), m.status).c_str(), m.message.c_str());
            }
          },
          [] { return interrupted.load(); });
      rounds.push_back(report);
      if (!options.quiet)
        print_round(report, options.tune.budget, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  } catch (...) {
    std::signal(SIGINT, previous);
    throw;
  }
  std::signal(SIGINT, previous);
  if (interrupted && !options.quiet)
    std::fprintf(stderr, "stopped (Ctrl-C): %zu measurements kept; --resume continues\n", tuner.measurements().size());
  write_outputs(options, tuner);
  double best = INFINITY;
  int32_t best_config = -1;
  for (const Measurement& m : tuner.measurements()) {
    if (m.ok() && m.seconds < best) best = m.seconds, best_config = m.config;
  }
  std::string confirmation;
  if (confirm && best_config >= 0 && !interrupted) {
    if (!options.quiet) std::fprintf(stderr, "confirming: config %d and config 0 re-measured apart, alternately\n", best_config);
    confirmation = confirm(best_config);
  }
  if (options.json) {
    nlohmann::json summary = tune_summary_json(tuner, name_of(oracle_kind_names(), options.oracle), rounds, interrupted.load());
    if (!confirmation.empty()) summary["confirmation"] = confirmation;
    std::cout << summary.dump(2) << "\n";
  } else {
    std::printf("%zu measured; best config %d: %s\n", tuner.measurements().size(), best_config, format_duration(best).c_str());
    if (!confirmation.empty()) std::printf("%s\n", confirmation.c_str());
    if (!rounds.empty() && std::isfinite(rounds.back().unmeasured_tau)) {
      std::printf("on the %d unmeasured configs (replay): Kendall tau-b %.4f, top-5 slowdown %.4f; best measured / best of all %.4f\n",
                  target.graph.config_count - static_cast<int>(tuner.measurements().size()), rounds.back().unmeasured_tau,
                  rounds.back().unmeasured_slowdown_at_5, rounds.back().best_over_pool_best);
    }
    if (!options.out.empty()) std::printf("wrote %s (journal %s)\n", options.out.c_str(), journal_path(options.out).c_str());
  }
  return interrupted ? 130 : 0;
}

CLI::App* add_tune_command(CLI::App& app, TuneCommandOptions& tune) {
  CLI::App* command = app.add_subcommand(
      "tune", "Tune a program from a few of its measurements: rank the candidates, measure a batch, learn, repeat (docs/tuning.md)");
  TuneOptions& t = tune.tune;
  LearnerOptions& l = t.learner;
  command
      ->add_option("target", tune.target,
                   "a layout or tile .npz, tuning records, a module (HLO text or proto), or a kernel's parameter space (T4 results, a "
                   "Kernel Tuner cache or a T1 definition, .json[.gz])")
      ->required();
  command->add_option("--model", tune.model, "a model: the first ranking, the GNN's warm start (--init model), or zero-shot's");
  command->add_option("--budget", t.budget, "measurements in all, failed ones included")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  command->add_option("--per-round", t.per_round, "measurements a round")->check(CLI::Range(1, 100000))->capture_default_str();
  add_named_option(command, "--strategy", t.strategy, tune_strategy_names(),
                   "online (learn after each round), zero-shot (the model as is), random, fewest-changes, genetic (parameter spaces: "
                   "Kernel Tuner's genetic algorithm, model-free)");
  command->add_option("--kernel", tune.kernel,
                      "module targets: tune this instruction as a module of its own (a dot, a fusion: its operands random inputs)");
  command->add_flag("--against-autoschedulers", tune.against_autoschedulers,
                    "--oracle cpu: re-measure Halide's autoschedulers' schedules (Adams2019, Mullapudi2016, Li2018) beside the best found");
  command->add_option("--warm-start", tune.warm_start,
                      "a space target: another GPU's measurements of the same space (T4 or cache): XGBoost fitted there ranks the "
                      "first batch and is a feature of the learners here");
  add_named_option(command, "--learner", l.kind, learner_names(),
                   "online: what learns from the measurements: auto (the one of xgboost and ridge that ranks the measured configs "
                   "best in cross-validation, at every round; docs/tuning.md), xgboost, ridge, gnn, weighed (GNN and ridge weighed "
                   "by how each ranked the new measurements before they were made), blend (GNN and ridge averaged)");
  add_named_option(command, "--acquisition", t.acquisition, tune_acquisition_names(),
                   "online: which configs next: best (the learner's best plus --explore at random), ucb (bagged fits' mean minus "
                   "their spread), thompson (each pick one bagged fit's best)");
  command
      ->add_option("--explore", t.explore,
                   "online: share of each batch drawn at random among the unmeasured (the target's default: " +
                       std::to_string(kGraphExplore).substr(0, 3) + " for graphs, " + std::to_string(kSpaceExplore).substr(0, 3) +
                       " for parameter spaces)")
      ->check(CLI::Range(0.0, 1.0));
  add_named_option(command, "--oracle", tune.oracle, oracle_kind_names(),
                   "replay (the file's recorded runtimes), simulate (graphcost's simulator), command (--measure), cpu (a module "
                   "lowered to Halide and timed on this CPU; graphcost-cpu, docs/lowering.md)");
  command->add_option("--measure", tune.measure,
                      "--oracle command: a command given CONFIG.json [MODULE.hlo]; prints seconds on its last line");
  command
      ->add_option("--measure-timeout", tune.measure_timeout,
                   "--oracle command and cpu: seconds before a run (cpu: compiling included) is killed, a failed measurement")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command
      ->add_option("--measure-threads", tune.measure_threads,
                   "--oracle cpu: cores a measurement uses (pinned; stored Funcs' outer loops parallel)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  command->add_option("--repeats", tune.repeats, "--oracle command: runs per measurement, the median kept")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->add_option("--hardware", tune.hardware, "--oracle simulate: nominal, tpu-v5e, tpu-v6e or a JSON profile")->capture_default_str();
  command->add_option("--candidates", tune.candidates, "module targets: random configs beside config 0")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  add_seed_option(command, t.seed, "seed: same seed, same measurements in the same order");
  add_named_option(command, "--init", l.init, gnn_init_names(),
                   "the GNN (learners gnn, weighed, blend): start each fit from the one before (previous; the first from scratch), "
                   "from scratch, or from --model's weights");
  command->add_option("--epochs", l.epochs, "the GNN: epochs per fit")->check(CLI::Range(1, 10000))->capture_default_str();
  command->add_option("--steps-per-epoch", l.steps_per_epoch, "the GNN: steps per epoch")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command->add_option("--configs-per-step", l.configs_per_step, "the GNN: measured configs a training step ranks")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  command
      ->add_option("--hops", l.scratch_model.hops,
                   "the GNN, layout, from scratch: configurable nodes and their k-hop neighbours (-1: the whole graph; 2 did not "
                   "rank better on the real files and takes 1.5x the time, docs/tuning.md)")
      ->check(CLI::Range(-1, 16))
      ->capture_default_str();
  command->add_option("--out", tune.out, "a labelled TpuGraphs file of every config measured (journal beside it: OUT.journal)");
  command->add_option("--costs-out", tune.costs_out, "CSV: config,predicted,measured (1 if measured) for every candidate");
  command->add_option("--model-out", tune.model_out,
                      "the last fitted learner: a model file (gnn) or a learner file (JSON) that rank and predict read for this program");
  command->add_flag("--resume", tune.resume,
                    "continue the run journaled beside --out (nothing is measured twice; other options are refused)");
  command->add_flag("--json", tune.json, "print the summary as JSON");
  command->add_flag("-q,--quiet", tune.quiet, "no per-round lines on stderr");
  return command;
}

}  // namespace graphcost
