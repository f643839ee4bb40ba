#include "cli/tune_command.h"

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command_oracle.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/units.h"
#include "synth/hardware_profile.h"
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

nlohmann::json journal_header(const TuneCommandOptions& options, const TuningTarget& target) {
  return {{"graphcost_tune", 1},
          {"target", target.path},
          {"fingerprint", target.fingerprint},
          {"oracle", name_of(oracle_kind_names(), options.oracle)},
          {"strategy", name_of(tune_strategy_names(), options.tune.strategy)},
          {"seed", options.tune.seed},
          {"candidates", options.candidates}};
}

Oracle make_oracle(const TuneCommandOptions& options, const TuningTarget& target) {
  switch (options.oracle) {
    case OracleKind::Replay: return replay_oracle(target);
    case OracleKind::Simulate: return simulate_oracle(target, hardware_profile(options.hardware));
    case OracleKind::Command: {
      CommandOracleOptions command;
      command.command = options.measure;
      command.timeout_seconds = options.measure_timeout;
      command.repeats = options.repeats;
      command.work_dir = options.out.empty() ? "graphcost-tune-measurements" : options.out + ".measurements";
      command.stop = [] { return interrupted.load(); };
      return command_oracle(target, command);
    }
  }
  throw InputError("--oracle", "", "replay, simulate or command", "another");
}

std::string number(double value, const char* format) {
  if (!std::isfinite(value)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

void print_round(const RoundReport& r, int budget, double elapsed) {
  std::string line = "round " + std::to_string(r.round) + ": " + std::to_string(r.measured) + "/" + std::to_string(budget) + " measured";
  if (r.failed > 0) line += " (" + std::to_string(r.failed) + " failed)";
  line += ", best " + format_duration(r.best_seconds);
  if (std::isfinite(r.config0_seconds) && std::isfinite(r.best_seconds)) line += " (" + format_change(r.best_seconds / r.config0_seconds) + " vs config 0)";
  line += ", tau on the new ones before measuring " + number(r.out_of_sample_tau, "%.3f");
  if (std::isfinite(r.unmeasured_tau)) line += ", on the unmeasured " + number(r.unmeasured_tau, "%.3f");
  if (std::isfinite(r.gnn_weight)) line += ", GNN's share " + number(r.gnn_weight, "%.2f");
  const double per_measurement = r.measured > 0 ? elapsed / r.measured : 0;
  line += "; round " + number(r.seconds, "%.2fs") + " (learn " + number(r.learn_seconds, "%.2fs") + "), ETA " +
          number(per_measurement * (budget - r.measured), "%.0fs");
  std::fprintf(stderr, "%s\n", line.c_str());
}

void write_outputs(const TuneCommandOptions& options, const Tuner& tuner) {
  if (!options.out.empty()) {
    TpuGraph measured = tuner.measured_graph();
    if (measured.config_count >= 1) {
      std::ostringstream provenance;
      provenance << "graphcost tune of " << tuner.target().path << " (oracle " << name_of(oracle_kind_names(), options.oracle) << ", strategy "
                 << name_of(tune_strategy_names(), options.tune.strategy) << ", seed " << options.tune.seed << "): " << measured.config_count
                 << " measured configs";
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
}

nlohmann::json summary_json(const TuneCommandOptions& options, const Tuner& tuner, const std::vector<RoundReport>& rounds) {
  nlohmann::json json_rounds = nlohmann::json::array();
  const auto value = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  for (const RoundReport& r : rounds) {
    json_rounds.push_back({{"round", r.round},
                           {"measured", r.measured},
                           {"ok", r.ok},
                           {"failed", r.failed},
                           {"best_seconds", value(r.best_seconds)},
                           {"config0_seconds", value(r.config0_seconds)},
                           {"out_of_sample_tau", value(r.out_of_sample_tau)},
                           {"unmeasured_tau", value(r.unmeasured_tau)},
                           {"gnn_weight", value(r.gnn_weight)},
                           {"unmeasured_slowdown_at_5", value(r.unmeasured_slowdown_at_5)},
                           {"best_over_pool_best", value(r.best_over_pool_best)},
                           {"seconds", r.seconds},
                           {"learn_seconds", r.learn_seconds}});
  }
  nlohmann::json best = nullptr;
  for (const Measurement& m : tuner.measurements()) {
    if (m.ok() && (best.is_null() || m.seconds < best["seconds"].get<double>())) best = {{"config", m.config}, {"seconds", m.seconds}};
  }
  return {{"target", tuner.target().path},
          {"candidates", tuner.target().graph.config_count},
          {"oracle", name_of(oracle_kind_names(), options.oracle)},
          {"strategy", name_of(tune_strategy_names(), options.tune.strategy)},
          {"seed", options.tune.seed},
          {"best", best},
          {"rounds", json_rounds},
          {"interrupted", interrupted.load()}};
}

}  // namespace

int run_tune_command(const TuneCommandOptions& options) {
  if (options.oracle == OracleKind::Command && options.out.empty()) {
    throw InputError("--out", "", "a results file when measuring on hardware (each measurement is journaled beside it)", "none");
  }
  if (options.resume && options.out.empty()) throw InputError("--resume", "", "--out naming the run to continue", "none");
  if (!options.out.empty()) check_output_path(options.out, {options.target});
  if (!options.costs_out.empty()) check_output_path(options.costs_out, {options.target});
  const TuningTarget target = load_tuning_target(options.target, options.candidates, options.tune.seed);
  std::unique_ptr<CostModel> model;
  if (!options.model.empty()) model = std::make_unique<CostModel>(CostModel::load(options.model));
  Tuner tuner(target, make_oracle(options, target), model.get(), options.tune);

  std::unique_ptr<TuningJournalWriter> journal;
  if (!options.out.empty()) {
    const nlohmann::json header = journal_header(options, target);
    if (options.resume) {
      const TuningJournal earlier = read_tuning_journal(journal_path(options.out));
      for (const char* key : {"fingerprint", "oracle"}) {
        if (earlier.header.value(key, nlohmann::json()) != header[key]) {
          throw InputError(journal_path(options.out), std::string("header ") + key, header[key].dump() + " (this run's)",
                           earlier.header.value(key, nlohmann::json()).dump());
        }
      }
      if (earlier.dropped_partial_line) std::fprintf(stderr, "warning: the journal's last line was cut short (a kill): that measurement is made again\n");
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
      if (!options.quiet) print_round(report, options.tune.budget, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  } catch (...) {
    std::signal(SIGINT, previous);
    throw;
  }
  std::signal(SIGINT, previous);
  if (interrupted && !options.quiet) std::fprintf(stderr, "stopped (Ctrl-C): %zu measurements kept; --resume continues\n", tuner.measurements().size());
  write_outputs(options, tuner);
  if (options.json) {
    std::cout << summary_json(options, tuner, rounds).dump(2) << "\n";
  } else {
    double best = INFINITY;
    int32_t best_config = -1;
    for (const Measurement& m : tuner.measurements()) {
      if (m.ok() && m.seconds < best) best = m.seconds, best_config = m.config;
    }
    std::printf("%zu measured; best config %d: %s\n", tuner.measurements().size(), best_config, format_duration(best).c_str());
    if (!rounds.empty() && std::isfinite(rounds.back().unmeasured_tau)) {
      std::printf("on the %d unmeasured configs (replay): Kendall tau-b %.4f, top-5 slowdown %.4f; best measured / best of all %.4f\n",
                  target.graph.config_count - static_cast<int>(tuner.measurements().size()), rounds.back().unmeasured_tau,
                  rounds.back().unmeasured_slowdown_at_5, rounds.back().best_over_pool_best);
    }
    if (!options.out.empty()) std::printf("wrote %s (journal %s)\n", options.out.c_str(), journal_path(options.out).c_str());
  }
  return interrupted ? 130 : 0;
}

}  // namespace graphcost
