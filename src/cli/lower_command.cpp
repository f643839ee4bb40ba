#include "cli/lower_command.h"

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_import.h"
#include "io/npz_file.h"
#include "lowering/hlo_to_halide.h"
#include "lowering/lowering_coverage.h"
#include "lowering/run_lowered.h"

namespace graphcost {

CLI::App* add_lower_command(CLI::App& app, LowerOptions& options) {
  CLI::App* command = app.add_subcommand("lower", "An XLA module as a Halide pipeline: what lowers (--explain), or run it on arrays");
  command->add_option("module", options.module, "HLO text or an HloProto / HloModuleProto file")->required();
  command->add_flag("--explain", options.explain, "Per opcode: instructions, how many lower, why the others do not");
  command->add_flag("--json", options.json, "--explain as JSON");
  command->add_option("--computation", options.computation, "The computation to lower and run (default: the entry), e.g. a fusion's");
  command
      ->add_option("--kernel", options.kernel,
                   "One instruction apart (a fusion, a dot, a convolution), its operands the parameters, as measure --kernel")
      ->excludes(command->get_option("--computation"));
  command->add_option("--inputs", options.inputs, "An .npz with param0, param1, ... (the entry's parameters: dtype and shape as declared)");
  command->add_option("--out", options.out, "Where the outputs go (.npz: out0, out1, ...), computed by Halide's JIT on this CPU");
  return command;
}

namespace {

int explain(const HloModule& module, bool json) {
  const LoweringCoverage coverage = lowering_coverage(module);
  if (json) {
    nlohmann::json opcodes = nlohmann::json::array();
    for (const auto& op : coverage.opcodes)
      opcodes.push_back({{"opcode", op.opcode}, {"instructions", op.instructions}, {"lowered", op.lowered}, {"why", op.why}});
    std::cout << nlohmann::json{{"module", module.source},
                                {"instructions", coverage.instructions},
                                {"lowered", coverage.lowered},
                                {"entry_lowers", coverage.entry_lowers},
                                {"opcodes", opcodes}}
                     .dump(1)
              << "\n";
    return 0;
  }
  std::printf("%s: %lld of %lld instructions lower to Halide (%.1f%%); the entry computation %s\n", module.source.c_str(),
              static_cast<long long>(coverage.lowered), static_cast<long long>(coverage.instructions),
              coverage.instructions ? 100.0 * static_cast<double>(coverage.lowered) / static_cast<double>(coverage.instructions) : 0.0,
              coverage.entry_lowers ? "lowers whole" : "does not lower whole");
  std::printf("%-24s %12s %8s  %s\n", "opcode", "instructions", "lowered", "why not");
  for (const auto& op : coverage.opcodes) {
    std::printf("%-24s %12lld %8lld  %s\n", op.opcode.c_str(), static_cast<long long>(op.instructions), static_cast<long long>(op.lowered),
                op.why.c_str());
  }
  return 0;
}

}  // namespace

int run_lower_command(const LowerOptions& options) {
  const HloModule whole = read_hlo_module(options.module);
  const HloModule module = options.kernel.empty() ? whole : named_kernel(whole, options.module, options.kernel);
  if (options.explain || options.json) return explain(module, options.json);
  if (options.inputs.empty() != options.out.empty()) {
    throw InputError("lower", options.inputs.empty() ? "--inputs" : "--out", "--inputs and --out together", "only one of them");
  }
  int32_t computation = module.entry;
  if (!options.computation.empty()) {
    computation = -1;
    for (size_t c = 0; c < module.computations.size(); ++c) {
      if (module.computations[c].name == options.computation) computation = static_cast<int32_t>(c);
    }
    if (computation < 0) throw InputError(options.module, "--computation", "a computation of the module", options.computation);
  }
  LoweredComputation lowered = lower_computation(module, computation);
  if (options.inputs.empty()) {
    std::printf("%s: computation %s lowers: %zu parameters, %zu outputs (--inputs and --out run it)\n", module.source.c_str(),
                module.computations[static_cast<size_t>(computation)].name.c_str(), lowered.parameters.size(), lowered.outputs.size());
    return 0;
  }
  const NpzFile inputs = read_npz_file(options.inputs);
  std::vector<NpyArray> arrays;
  for (size_t k = 0; k < lowered.parameters.size(); ++k) {
    const NpyArray* array = inputs.find("param" + std::to_string(k));
    if (array == nullptr)
      throw InputError(options.inputs, "param" + std::to_string(k), "an array for parameter " + std::to_string(k), "none");
    arrays.push_back(*array);
  }
  if (inputs.arrays.size() != arrays.size()) {
    const std::string names = arrays.empty() ? "none" : "param0 ... param" + std::to_string(arrays.size() - 1);
    throw InputError(options.inputs, "arrays", std::to_string(arrays.size()) + " (" + names + ")", std::to_string(inputs.arrays.size()));
  }
  const std::vector<NpyArray> outputs = run_lowered(lowered, arrays, options.inputs);
  NpzWriter writer(options.out, ZipCompression::Stored, {options.module, options.inputs});
  for (size_t k = 0; k < outputs.size(); ++k) writer.add("out" + std::to_string(k), outputs[k]);
  writer.finish();
  return 0;
}

}  // namespace graphcost
