// `graphcost measure MODULE --configs N --out FILE.npz` (graphcost-cpu, cli/cpu_main.cpp): a labelled TpuGraphs layout file whose
// runtimes were measured on this CPU: the module imported as `graphcost import` does (config 0
// its own layouts, N random ones), each config lowered to Halide with its layouts and timed by the
// protocol of lowering/measure_configs.h. Ctrl-C stops after the current config and writes what
// was measured. With --kernel NAME, that instruction (a fusion, a dot, a convolution) is measured
// apart, as TpuGraphs' tile task measures kernels: its operands random inputs, its configs the
// layouts of its own dots, convolutions and reshapes. With --tile, its configs are tile sizes of
// its output (lowering/tile_schedule.h; config 0 the kernel untiled) and the file a tile file. docs/lowering.md, "Measuring".
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "cli/config_bounds.h"

namespace graphcost {

struct MeasureCommandOptions {
  std::string module;
  std::string kernel;  // measure this instruction apart (hlo/fusion_kernels.h: kernel_module), not the entry
  std::string out;
  bool tile = false;  // tile configs of the kernel (lowering/tile_schedule.h), not layouts
  int configs = 20;
  int passes = 1;
  int max_repeats = 30;
  ConfigBounds bounds;  // --threads, --timeout, --max-memory-mb
  uint64_t seed = 0;
  bool quiet = false;
};

CLI::App* add_measure_command(CLI::App& app, MeasureCommandOptions& options);
int run_measure_command(const MeasureCommandOptions& options);

}  // namespace graphcost
