#include "cli/measure_command.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>

#include "common/input_error.h"
#include "data/node_features.h"
#include "data/tile_configs.h"
#include "data/tpu_graph.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_graph.h"
#include "hlo/hlo_import.h"
#include "hlo/module_configs.h"
#include "lowering/measure_configs.h"
#include "metrics/kendall_tau.h"

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
  command->add_option("--max-repeats", options.max_repeats, "Timed runs of one config at most (fewer once its minimum is stable)");
  command->add_option("--seed", options.seed, "The random configs, the inputs' values and the order");
  command->add_flag("-q,--quiet", options.quiet, "No progress on stderr");
  return command;
}

namespace {

volatile std::sig_atomic_t interrupted = 0;
void on_interrupt(int) { interrupted = 1; }

// What `measure` measured: a layout graph and its module, or a tile kernel (module and graph).
struct Measured {
  TpuGraph graph;
  HloModule module;
  std::vector<int32_t> computation_first;  // layout: the graph's node offsets
};

template <typename T>
std::vector<T> kept_rows(const std::vector<T>& rows, size_t row, const std::vector<size_t>& kept) {
  std::vector<T> result;
  for (const size_t c : kept)
    result.insert(result.end(), rows.begin() + static_cast<std::ptrdiff_t>(c * row),
                  rows.begin() + static_cast<std::ptrdiff_t>((c + 1) * row));
  return result;
}

// The measured configs (in their order; the failed and the stopped ones left out and listed) as a
// labelled layout or tile file, and what the measurement saw: the spread, config 0 across
// batches, the noise.
int write_measured(TpuGraph& graph, const std::vector<ConfigMeasurement>& results, const MeasureCommandOptions& options) {
  std::vector<size_t> kept;
  std::vector<int64_t> runtimes;
  std::vector<double> first_pass, second_pass;
  for (size_t c = 0; c < results.size(); ++c) {
    const ConfigMeasurement& result = results[c];
    if (!result.failure.empty()) {
      std::fprintf(stderr, "measure: config %zu not measured: %s\n", c, result.failure.c_str());
      continue;
    }
    kept.push_back(c);
    runtimes.push_back(std::max<int64_t>(1, static_cast<int64_t>(result.best() * 1e9 + 0.5)));
    if (c > 0 && result.pass_minimum.size() >= 2) {
      first_pass.push_back(result.pass_minimum[0]);
      second_pass.push_back(result.pass_minimum[1]);
    }
  }
  if (runtimes.empty() || !results[0].failure.empty()) {
    throw InputError(options.module, "config 0", options.tile ? "measured (the untiled kernel)" : "measured (the module's own layouts)",
                     results.empty() ? "no configs" : results[0].failure);
  }
  graph.config_count = static_cast<int32_t>(runtimes.size());
  if (graph.kind == GraphKind::Tile) {
    graph.tile_config_features = kept_rows(graph.tile_config_features, 24, kept);
    graph.config_runtime_normalizers_ns.assign(runtimes.size(), runtimes[0]);  // each runtime against the untiled kernel's
  } else {
    graph.layout_config_features =
        kept_rows(graph.layout_config_features, graph.configurable_nodes.size() * kLayoutConfigFeatureCount, kept);
  }
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
  std::printf("  config 0 (%s) %.3f ms; fastest %.3f ms, slowest %.3f ms (spread %.2fx)\n",
              options.tile ? "the kernel untiled" : "the module's own layouts", runtimes[0] * 1e-6, *fastest * 1e-6, *slowest * 1e-6,
              static_cast<double>(*slowest) / static_cast<double>(*fastest));
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

// The instruction named `name` (a fusion, a dot, a convolution) as a kernel module of its own.
HloModule named_kernel(const HloModule& module, const std::string& path, const std::string& name) {
  for (size_t c = 0; c < module.computations.size(); ++c) {
    const std::vector<HloInstruction>& instructions = module.computations[c].instructions;
    for (size_t i = 0; i < instructions.size(); ++i) {
      if (instructions[i].name != name) continue;
      if (instructions[i].opcode == "parameter" || instructions[i].opcode == "constant") {
        throw InputError(path, "--kernel " + name, "an instruction that computes (a fusion, a dot, a convolution)",
                         std::string(instructions[i].opcode));
      }
      return kernel_module(module, {static_cast<int32_t>(c), static_cast<int32_t>(i)});
    }
  }
  throw InputError(path, "--kernel", "the name of an instruction of the module (a fusion, a dot, a convolution)", name);
}

const HloShape& first_array(const HloShape& shape) {
  return shape.is_tuple() && !shape.elements.empty() ? first_array(shape.elements.front()) : shape;
}

// The tile kernel of the module (its entry, or --kernel's instruction): a Tile graph whose config 0
// is the whole output as one tile (the untiled kernel), then up to --configs tile configs drawn
// as `graphcost import` draws them (hlo/module_configs.h).
Measured tile_kernel(const MeasureCommandOptions& options) {
  ModuleFileFormat format = ModuleFileFormat::HloText;
  HloModule module = read_hlo_module(options.module, nullptr, &format);
  Measured measured;
  measured.module = options.kernel.empty() ? module : named_kernel(module, options.module, options.kernel);
  const HloComputation& entry = measured.module.computations.at(static_cast<size_t>(measured.module.entry));
  const HloShape& output = first_array(entry.instructions.at(static_cast<size_t>(entry.root)).shape);
  if (output.dims.empty() || output.has_dynamic_dimension()) {
    throw InputError(options.module, "the kernel's output", "an array of static dimensions (tile sizes to choose)",
                     output.is_tuple() ? "a tuple" : "a scalar or a dynamic shape");
  }
  HloGraph hlo = build_hlo_graph(measured.module);
  measured.graph = std::move(hlo.graph);
  measured.graph.kind = GraphKind::Tile;
  measured.graph.node_splits.clear();
  add_tile_configs(measured.graph, output.dims, output.minor_to_major, options.configs + 1, options.seed);
  // Config 0: the whole output as one tile, first; drawn again among the others, it is dropped there.
  const std::vector<float> untiled = tile_config_features(output.dims, output.dims);
  std::vector<float> rows = untiled;
  for (int32_t c = 0; c < measured.graph.config_count; ++c) {
    const auto row = measured.graph.tile_config_features.begin() + static_cast<std::ptrdiff_t>(c) * 24;
    if (std::equal(untiled.begin(), untiled.end(), row)) continue;
    if (static_cast<int>(rows.size() / 24) > options.configs) break;
    rows.insert(rows.end(), row, row + 24);
  }
  measured.graph.tile_config_features = rows;
  measured.graph.config_count = static_cast<int32_t>(rows.size() / 24);
  measured.graph.source = options.module;
  measured.graph.provenance = (options.kernel.empty() ? "the entry of " : "the kernel of " + options.kernel + " of ") +
                              module_source_text(options.module, format, module) + "; config 0 the kernel untiled, " +
                              std::to_string(measured.graph.config_count - 1) + " tile configs (seed " + std::to_string(options.seed) + ")";
  return measured;
}

// The layout graph of the kernel of instruction `name` (named_kernel) in the module at `path`.
HloLayoutImport import_kernel_layout(const std::string& path, const std::string& name, const HloImportOptions& options) {
  ModuleFileFormat format = ModuleFileFormat::HloText;
  const HloModule module = read_hlo_module(path, nullptr, &format);
  HloLayoutImport imported = import_module_layout(named_kernel(module, path, name), path, format, options);
  imported.graph.provenance = "the kernel of " + name + " of " + imported.graph.provenance;
  return imported;
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
  Measured measured;
  if (options.tile) {
    measured = tile_kernel(options);
  } else {
    HloImportOptions import_options;
    import_options.random_configs = options.configs;
    import_options.seed = options.seed;
    HloLayoutImport imported = options.kernel.empty() ? import_hlo_layout(options.module, import_options)
                                                      : import_kernel_layout(options.module, options.kernel, import_options);
    if (imported.graph.configurable_count() == 0) {
      throw InputError(options.module, "configurable nodes", "a convolution, dot or reshape of rank 2 or more (a layout to choose)",
                       "none (--tile measures a kernel's tile sizes)");
    }
    measured.graph = std::move(imported.graph);
    measured.module = std::move(imported.module);
    measured.computation_first = std::move(imported.computation_first);
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
  const std::vector<ConfigMeasurement> results =
      options.tile
          ? measure_tile_configs(measured.module, measured.graph, measure, progress)
          : measure_configs(
                measured.graph.config_count,
                [&](int64_t config, ConfigMeasurement& result, std::vector<uint8_t>& reference) {
                  measure_layout_config({measured.module, measured.computation_first, measured.graph}, config, measure, result, reference);
                },
                measure, progress, options.module);
  std::signal(SIGINT, SIG_DFL);
  if (!options.quiet) std::fprintf(stderr, "\n");
  return write_measured(measured.graph, results, options);
}

}  // namespace graphcost
