#include "cli/measure_command.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "data/tpu_graph.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_import.h"
#include "lowering/measure_configs.h"
#include "lowering/measure_targets.h"

namespace graphcost {

CLI::App* add_measure_command(CLI::App& app, MeasureCommandOptions& options) {
  CLI::App* command =
      app.add_subcommand("measure", "Layout configs of a module timed on this CPU through Halide: a labelled TpuGraphs file");
  command->add_option("module", options.module, "HLO text whose entry computation lowers whole (graphcost lower MODULE says)")->required();
  command->add_option("--kernel", options.kernel,
                      "Measure this instruction apart (a fusion, a dot, a convolution: its operands random inputs), not the entry");
  command->add_flag("--tile", options.tile,
                    "Tile configs of the kernel (its output's tile sizes, as TpuGraphs' tile files; config 0 untiled) instead of layouts");
  command->add_option("--out", options.out, "The labelled layout file to write (.npz)")->required();
  command->add_option("--configs", options.configs, "Random layout configs beside config 0 (the module's own layouts)");
  command->add_option("--passes", options.passes, "Passes over all configs; 2 or more prints the noise (the tau between the first two)");
  command->add_option("--max-repeats", options.max_repeats,
                      "Timed runs of one config at most once --min-seconds are timed (fewer once its minimum is stable)");
  add_config_bounds(command, options.bounds);
  command->add_option("--seed", options.seed, "The random configs, the inputs' values and the order");
  command->add_flag("-q,--quiet", options.quiet, "No progress on stderr");
  return command;
}

namespace {

volatile std::sig_atomic_t interrupted = 0;
void on_interrupt(int) { interrupted = 1; }

void print_summary(const MeasuredSummary& summary, const MeasureCommandOptions& options) {
  for (const std::string& line : summary.not_measured) std::fprintf(stderr, "measure: %s not measured\n", line.c_str());
  std::printf("%s: %lld of %lld configs measured on %s\n", options.out.c_str(), static_cast<long long>(summary.measured),
              static_cast<long long>(summary.configs), cpu_description().c_str());
  if (summary.programs < summary.configs) {
    std::printf("  %lld distinct programs: the other configs lower to one of them statement for statement, measured once\n",
                static_cast<long long>(summary.programs));
  }
  std::printf("  config 0 (%s) %.3f ms; fastest %.3f ms, slowest %.3f ms (spread %.2fx)\n",
              options.tile ? "the kernel untiled" : "the module's own layouts", summary.config0 * 1e3, summary.fastest * 1e3,
              summary.slowest * 1e3, summary.slowest / summary.fastest);
  const std::vector<double>& zero = summary.config0_batches;
  if (zero.size() >= 2) {
    const auto [low, high] = std::minmax_element(zero.begin(), zero.end());
    std::printf("  config 0 re-measured %zu times: %.3f-%.3f ms (%.1f%% apart)\n", zero.size(), *low * 1e3, *high * 1e3,
                (*high / *low - 1) * 100);
  }
  if (summary.remeasured > 0) {
    std::printf("  %lld configs keep minima from their batch measured again (config 0 had run over %.0f%% slower than its best)\n",
                static_cast<long long>(summary.remeasured), kSlowBatch * 100);
  }
  if (summary.pass_tau_configs >= 2) {
    std::printf("  noise: the tau between two passes over %lld configs is %.3f (%.3f with each relative to config 0 %s)\n",
                static_cast<long long>(summary.pass_tau_configs), summary.raw_pass_tau, summary.pass_tau,
                options.bounds.paired ? "timed alternately with it: the labels" : "in its batch");
  }
}

MeasureTarget target_of(const MeasureCommandOptions& options) {
  ModuleFileFormat format = ModuleFileFormat::HloText;
  HloModule module = read_hlo_module(options.module, nullptr, &format);
  if (!options.tile) {
    HloModule measured = options.kernel.empty() ? std::move(module) : named_kernel(module, options.module, options.kernel);
    return layout_target(std::move(measured), options.module, format, options.kernel, options.configs, options.seed);
  }
  const std::string source = (options.kernel.empty() ? "the entry of " : "the kernel of " + options.kernel + " of ") +
                             module_source_text(options.module, format, module);
  HloModule kernel = options.kernel.empty() ? module : named_kernel(module, options.module, options.kernel);
  return tile_target(std::move(kernel), options.module, source, options.configs, options.seed);
}

}  // namespace

int run_measure_command(const MeasureCommandOptions& options) {
  if (options.configs < 0 || options.passes < 1 || options.max_repeats < 3) {
    throw InputError("measure",
                     options.configs < 0  ? "--configs"
                     : options.passes < 1 ? "--passes"
                                          : "--max-repeats",
                     options.configs < 0  ? "0 or more"
                     : options.passes < 1 ? "1 or more"
                                          : "3 or more",
                     "less");
  }
  MeasureTarget target = target_of(options);
  MeasureOptions measure;
  measure.passes = options.passes;
  measure.max_repeats = options.max_repeats;
  apply_config_bounds(options.bounds, measure);
  measure.seed = options.seed;
  const auto started = std::chrono::steady_clock::now();
  std::signal(SIGINT, on_interrupt);
  const auto progress = [&](int64_t done, int64_t total) {
    if (!options.quiet) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "\rmeasure: %lld / %lld steps (each config lowered, then measured), %.0f s, about %.0f s left   ",
                   static_cast<long long>(done), static_cast<long long>(total), elapsed,
                   elapsed / static_cast<double>(done) * static_cast<double>(total - done));
    }
    return interrupted == 0;
  };
  const std::vector<ConfigMeasurement> results = measure_target(target, measure, progress);
  std::signal(SIGINT, SIG_DFL);
  if (!options.quiet) std::fprintf(stderr, "\n");
  const std::string runs = measurement_runs_json(target, results, measure);
  const MeasuredSummary summary = label_measured(target, results, measure, options.module);
  save_tpu_graph(target.graph, options.out);
  write_file_atomically(options.out + ".runs.json", runs);
  print_summary(summary, options);
  return 0;
}

}  // namespace graphcost
