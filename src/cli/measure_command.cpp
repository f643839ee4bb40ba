#include "cli/measure_command.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>

#include "common/input_error.h"
#include "data/node_features.h"
#include "data/tpu_graph.h"
#include "hlo/hlo_import.h"
#include "lowering/measure_configs.h"
#include "metrics/kendall_tau.h"

namespace graphcost {

CLI::App* add_measure_command(CLI::App& app, MeasureCommandOptions& options) {
  CLI::App* command =
      app.add_subcommand("measure", "Layout configs of a module timed on this CPU through Halide: a labelled TpuGraphs file");
  command->add_option("module", options.module, "HLO text whose entry computation lowers whole (graphcost lower MODULE says)")->required();
  command->add_option("--out", options.out, "The labelled layout file to write (.npz)")->required();
  command->add_option("--configs", options.configs, "Random layout configs beside config 0 (the module's own layouts)");
  command->add_option("--passes", options.passes, "Passes over all configs; 2 or more prints the noise (the tau between the first two)");
  command->add_option("--max-repeats", options.max_repeats, "Timed runs of one config at most (fewer once its minimum is stable)");
  command->add_option("--seed", options.seed, "The random configs, the inputs' values and the order");
  command->add_flag("-q,--quiet", options.quiet, "No progress on stderr");
  return command;
}

namespace {

volatile std::sig_atomic_t interrupted = 0;
void on_interrupt(int) { interrupted = 1; }

// The measured configs (in their order; the failed and the stopped ones left out and listed) as a
// labelled layout file, and what the measurement saw: the spread, config 0 across batches, the noise.
int write_measured(HloLayoutImport& imported, const std::vector<ConfigMeasurement>& results, const MeasureCommandOptions& options) {
  TpuGraph& graph = imported.graph;
  const size_t nc = graph.configurable_nodes.size();
  const size_t row = nc * kLayoutConfigFeatureCount;
  std::vector<int8_t> kept_rows;
  std::vector<int64_t> runtimes;
  std::vector<double> first_pass, second_pass;
  for (size_t c = 0; c < results.size(); ++c) {
    const ConfigMeasurement& result = results[c];
    if (!result.failure.empty()) {
      std::fprintf(stderr, "measure: config %zu not measured: %s\n", c, result.failure.c_str());
      continue;
    }
    kept_rows.insert(kept_rows.end(), graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(c * row),
                     graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>((c + 1) * row));
    runtimes.push_back(std::max<int64_t>(1, static_cast<int64_t>(result.best() * 1e9 + 0.5)));
    if (c > 0 && result.pass_minimum.size() >= 2) {
      first_pass.push_back(result.pass_minimum[0]);
      second_pass.push_back(result.pass_minimum[1]);
    }
  }
  if (runtimes.empty() || !results[0].failure.empty()) {
    throw InputError(options.module, "config 0", "measured (the module's own layouts)",
                     results.empty() ? "no configs" : results[0].failure);
  }
  graph.config_count = static_cast<int32_t>(runtimes.size());
  graph.layout_config_features = std::move(kept_rows);
  graph.config_runtime_ns = runtimes;
  graph.runtimes_hidden = false;
  const std::string unmeasured = "; runtimes unmeasured";  // what import_hlo_layout says of its own file
  if (graph.provenance.size() >= unmeasured.size() &&
      graph.provenance.compare(graph.provenance.size() - unmeasured.size(), unmeasured.size(), unmeasured) == 0) {
    graph.provenance.resize(graph.provenance.size() - unmeasured.size());
  }
  graph.provenance += "; runtimes measured on " + cpu_description() + " through Halide 14's JIT, one thread, the minimum of up to " +
                      std::to_string(options.max_repeats) + " timed runs after a warm-up, " + std::to_string(options.passes) + " pass(es)";
  save_tpu_graph(graph, options.out);
  const auto [fastest, slowest] = std::minmax_element(runtimes.begin(), runtimes.end());
  std::printf("%s: %zu of %zu configs measured on %s\n", options.out.c_str(), runtimes.size(), results.size(), cpu_description().c_str());
  std::printf("  config 0 (the module's own layouts) %.3f ms; fastest %.3f ms, slowest %.3f ms (spread %.2fx)\n", runtimes[0] * 1e-6,
              *fastest * 1e-6, *slowest * 1e-6, static_cast<double>(*slowest) / static_cast<double>(*fastest));
  const std::vector<double>& zero = results[0].pass_minimum;
  if (zero.size() >= 2) {
    const auto [low, high] = std::minmax_element(zero.begin(), zero.end());
    std::printf("  config 0 re-measured %zu times: %.3f-%.3f ms (%.1f%% apart)\n", zero.size(), *low * 1e3, *high * 1e3,
                (*high / *low - 1) * 100);
  }
  if (first_pass.size() >= 2) {
    std::printf("  noise: the tau between two passes over %zu configs is %.3f\n", first_pass.size(),
                kendall_tau_b(first_pass.data(), second_pass.data(), first_pass.size()));
  }
  return 0;
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
  HloImportOptions import_options;
  import_options.random_configs = options.configs;
  import_options.seed = options.seed;
  HloLayoutImport imported = import_hlo_layout(options.module, import_options);
  if (imported.graph.configurable_count() == 0) {
    throw InputError(options.module, "configurable nodes", "a convolution, dot or reshape of rank 2 or more (a layout to choose)", "none");
  }
  MeasureOptions measure;
  measure.passes = options.passes;
  measure.max_repeats = options.max_repeats;
  measure.seed = options.seed;
  const auto started = std::chrono::steady_clock::now();
  std::signal(SIGINT, on_interrupt);
  const auto progress = [&](int64_t done, int64_t total) {
    if (!options.quiet) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "\rmeasure: %lld / %lld measurements, %.0f s, about %.0f s left   ", static_cast<long long>(done),
                   static_cast<long long>(total), elapsed, elapsed / static_cast<double>(done) * static_cast<double>(total - done));
    }
    return interrupted == 0;
  };
  const std::vector<ConfigMeasurement> results = measure_layout_configs(imported, measure, progress);
  std::signal(SIGINT, SIG_DFL);
  if (!options.quiet) std::fprintf(stderr, "\n");
  return write_measured(imported, results, options);
}

}  // namespace graphcost
