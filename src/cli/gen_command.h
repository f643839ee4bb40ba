// `graphcost gen --out DIR --graphs N --seed S [--collections ...] [--max-nodes ...]`: a synthetic
// TpuGraphs tree plus the test split's solution (src/synth/dataset_generator.h).
#pragma once

#include <CLI/CLI.hpp>

#include "synth/dataset_generator.h"

namespace graphcost {

struct GenOptions {
  GeneratorOptions generator;
  bool quiet = false;
};

// The `gen` subcommand and its options (help shows GenOptions's defaults).
CLI::App* add_gen_command(CLI::App& app, GenOptions& options);
int run_gen_command(const GenOptions& options);

}  // namespace graphcost
