// `graphcost simulate FILE...`: every config of each file priced by the cost simulator (the one
// that labels `graphcost gen`'s data), the file's own program rebuilt from its node features
// (simulator/program_from_graph.h). On a labelled file it reports how the simulator ranks the measured
// configs: Kendall tau-b, top-5 slowdown, and the simulated against the measured runtime spread
// (docs/generated-vs-real.md). FILE is an .npz (layout or tile) or HLO text (imported on the fly).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace graphcost {

struct SimulateCommandOptions {
  std::vector<std::string> paths;
  std::string out;                   // CSV: file, config, simulated_seconds, measured (empty when hidden)
  std::string hardware = "nominal";  // tpu-v5e, tpu-v6e, or a JSON file of constants (simulator/hardware_profile.h)
  bool json = false;
  std::string gemm;  // a CSV of GEMMs (M, N, K, dtype[, median_s][, family]): priced by simulator/gemm_model.h instead of files
  bool fit = false;  // --gemm: fit the profile's efficiencies to the rows, with held-out figures
};
// The `simulate` subcommand and its options (help shows SimulateCommandOptions's defaults).
CLI::App* add_simulate_command(CLI::App& app, SimulateCommandOptions& options);
int run_simulate_command(const SimulateCommandOptions& options);
// The --gemm mode (src/cli/simulate_gemm.cpp): each row priced; with median_s, median and p90
// |relative error| and Kendall tau-b; --out writes the rows with predicted_s beside their columns.
int run_simulate_gemm(const SimulateCommandOptions& options);

}  // namespace graphcost
