// `graphcost lower MODULE` (graphcost-cpu, cli/cpu_main.cpp): an XLA module (HLO text or proto) as a Halide pipeline (lowering/).
//   --explain                 what lowers and what not, per opcode, and why (exit 0 either way)
//   --inputs IN.npz --out OUT.npz   runs the entry computation (or --computation NAME: a fusion's
//                             kernel, a called function) through Halide's JIT on the arrays
//                             param0, param1, ... and writes out0, out1, ... (the root or its tuple);
//                             --kernel NAME: one instruction apart, its operands the parameters
// The lowering is the ground of real CPU measurements (docs/lowering.md).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace graphcost {

struct LowerOptions {
  std::string module;
  bool explain = false;
  bool json = false;
  std::string computation;  // "" : the entry
  std::string kernel;       // "" : none; else one instruction as a kernel module (hlo/fusion_kernels.h)
  std::string inputs;
  std::string out;
};

CLI::App* add_lower_command(CLI::App& app, LowerOptions& options);
int run_lower_command(const LowerOptions& options);

}  // namespace graphcost
