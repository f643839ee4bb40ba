// `graphcost-cpu oracle TARGET` (cli/cpu_main.cpp): the cpu oracle of `tune --oracle cpu` as a
// process another program drives, as the Python package's graphcost.CpuOracle does
// (docs/lowering.md, "From Python"): TARGET read as `graphcost tune` reads it (the same candidates
// for the same --candidates, --seed and --kernel), a first line {"fingerprint", "configs", "target"}
// on stdout, then for each config index read on stdin (one a line) one JSON line
// {"config", "status": "ok"|"failed", "seconds", "runs", "message"}, measured by the protocol of
// lowering/measure_configs.h (each config in a bounded child process); a line that is not a config
// index of the target is answered {"error": why}. Ends at the end of stdin.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace graphcost {

struct CpuOracleCommandOptions {
  std::string target, kernel;
  int candidates = 1000;
  uint64_t seed = 0;
  double timeout = 120;
  int threads = 1;
};

CLI::App* add_cpu_oracle_command(CLI::App& app, CpuOracleCommandOptions& options);
int run_cpu_oracle_command(const CpuOracleCommandOptions& options);

}  // namespace graphcost
