// `graphcost simulate FILE...`: every config of each file priced by the cost simulator (the one
// that labels `graphcost gen`'s data), the file's own program rebuilt from its node features
// (synth/program_from_graph.h). On a labelled file it reports how the simulator ranks the measured
// configs: Kendall tau-b, top-5 slowdown, and the simulated against the measured runtime spread
// (docs/generated-vs-real.md). FILE is an .npz (layout or tile) or HLO text (imported on the fly).
#pragma once

#include <string>
#include <vector>

namespace graphcost {

struct SimulateCommandOptions {
  std::vector<std::string> paths;
  std::string out;  // CSV: file, config, simulated_seconds, measured (empty when hidden)
  std::string hardware = "nominal";  // or a JSON file of constants (synth/hardware_profile.h)
  bool json = false;
};
int run_simulate_command(const SimulateCommandOptions& options);

}  // namespace graphcost
