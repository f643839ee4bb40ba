// `graphcost tune TARGET --budget N`: the model learns a program from a few of its measurements and
// proposes which configs to measure next (tune/tuner.h, docs/tuning.md). TARGET is a layout or tile
// .npz, tuning records, or a module (HLO text or proto: config 0 its own layouts plus --candidates
// random ones). Each round prints what was measured, the best so far (and against config 0), the
// model's tau on the round's new measurements predicted before they were measured, time and ETA.
// With --out, every measurement is journaled (RESULT.npz.journal) before the next starts; Ctrl-C
// stops after the current measurement and writes the outputs; --resume continues a journal.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "tune/oracles.h"
#include "tune/tuner.h"

namespace graphcost {

struct TuneCommandOptions {
  std::string target, model;
  TuneOptions tune;
  OracleKind oracle = OracleKind::Replay;
  std::string measure;  // --oracle command: the command
  double measure_timeout = 600;
  int measure_threads = 1;  // --oracle cpu: the cores a measurement uses
  int repeats = 1;
  std::string hardware = "nominal";  // --oracle simulate
  int candidates = 1000;             // module targets
  std::string out, costs_out;
  std::string model_out;   // the last fitted learner (learners/learner_file.h)
  std::string kernel;      // a module target: the instruction tuned as a module of its own (--kernel)
  std::string warm_start;  // a space target: another GPU's measurements of the same space (tune/space_target.h)
  bool json = false, resume = false, quiet = false;
  bool against_autoschedulers = false;  // --oracle cpu: Halide's autoschedulers re-measured beside the best found
  // --oracle cpu: the oracle's maker (lowering/cpu_oracle.h), set by graphcost-cpu, the executable
  // that links Halide; graphcost itself runs graphcost-cpu for it (cli/graphcost_main.cpp).
  std::function<Oracle(const TuningTarget& target, const std::function<bool()>& stop)> cpu_oracle;
};

// The `tune` subcommand and its options (help shows TuneCommandOptions' defaults).
CLI::App* add_tune_command(CLI::App& app, TuneCommandOptions& options);
int run_tune_command(const TuneCommandOptions& options);

}  // namespace graphcost
