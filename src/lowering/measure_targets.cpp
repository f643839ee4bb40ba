#include "lowering/measure_targets.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "data/node_features.h"
#include "data/tile_configs.h"
#include "hlo/fusion_kernels.h"
#include "hlo/hlo_graph.h"
#include "hlo/module_configs.h"
#include "metrics/kendall_tau.h"

namespace graphcost {

namespace {

template <typename T>
std::vector<T> kept_rows(const std::vector<T>& rows, size_t row, const std::vector<size_t>& kept) {
  std::vector<T> result;
  for (const size_t c : kept) {
    result.insert(result.end(), rows.begin() + static_cast<std::ptrdiff_t>(c * row),
                  rows.begin() + static_cast<std::ptrdiff_t>((c + 1) * row));
  }
  return result;
}

}  // namespace

MeasureTarget layout_target(HloModule module, const std::string& path, ModuleFileFormat format, const std::string& kernel, int configs,
                            uint64_t seed) {
  HloImportOptions options;
  options.random_configs = configs;
  options.seed = seed;
  HloLayoutImport imported = import_module_layout(std::move(module), path, format, options);
  if (imported.graph.configurable_count() == 0) {
    throw InputError(path + (kernel.empty() ? "" : " " + kernel), "configurable nodes",
                     "a convolution, dot or reshape of rank 2 or more (a layout to choose)",
                     "none (--tile measures a kernel's tile sizes)");
  }
  MeasureTarget target;
  if (!kernel.empty()) imported.graph.provenance = "the kernel of " + kernel + " of " + imported.graph.provenance;
  target.graph = std::move(imported.graph);
  target.module = std::move(imported.module);
  target.computation_first = std::move(imported.computation_first);
  return target;
}

MeasureTarget tile_target(HloModule kernel, const std::string& path, const std::string& source, int configs, uint64_t seed) {
  const HloComputation& entry = kernel.computations.at(static_cast<size_t>(kernel.entry));
  const HloShape output = first_array(entry.instructions.at(static_cast<size_t>(entry.root)).shape);
  if (output.dims.empty() || output.has_dynamic_dimension()) {
    throw InputError(path, "the kernel's output", "an array of static dimensions (tile sizes to choose)",
                     output.is_tuple() ? "a tuple" : "a scalar or a dynamic shape");
  }
  MeasureTarget target;
  HloGraph hlo = build_hlo_graph(kernel);
  target.module = std::move(kernel);
  target.graph = std::move(hlo.graph);
  target.graph.kind = GraphKind::Tile;
  target.graph.node_splits.clear();
  add_tile_configs(target.graph, output.dims, output.minor_to_major, configs + 1, seed);
  // Config 0: the whole output as one tile, first; drawn again among the others, it is dropped there.
  const std::vector<float> untiled = tile_config_features(output.dims, output.dims);
  std::vector<float> rows = untiled;
  for (int32_t c = 0; c < target.graph.config_count; ++c) {
    const auto row = target.graph.tile_config_features.begin() + static_cast<std::ptrdiff_t>(c) * 24;
    if (std::equal(untiled.begin(), untiled.end(), row)) continue;
    if (static_cast<int>(rows.size() / 24) > configs) break;
    rows.insert(rows.end(), row, row + 24);
  }
  target.graph.tile_config_features = rows;
  target.graph.config_count = static_cast<int32_t>(rows.size() / 24);
  target.graph.config_runtime_ns.assign(static_cast<size_t>(target.graph.config_count), 0);
  target.graph.config_runtime_normalizers_ns.assign(static_cast<size_t>(target.graph.config_count), 1);
  target.graph.source = path;
  target.graph.provenance = source + "; config 0 the kernel untiled, " + std::to_string(target.graph.config_count - 1) +
                            " tile configs (seed " + std::to_string(seed) + ")";
  return target;
}

std::vector<ConfigMeasurement> measure_target(const MeasureTarget& target, const MeasureOptions& options,
                                              const std::function<bool(int64_t, int64_t)>& progress) {
  if (target.graph.kind == GraphKind::Tile) return measure_tile_configs(target.module, target.graph, options, progress);
  const ModuleLayouts layouts{target.module, target.computation_first, target.graph};
  return measure_configs(target.graph.config_count, layout_lowering(layouts, options), options, progress, target.graph.source);
}

std::string measurement_runs_json(const MeasureTarget& target, const std::vector<ConfigMeasurement>& results,
                                  const MeasureOptions& options) {
  const TpuGraph& graph = target.graph;
  const bool tile = graph.kind == GraphKind::Tile;
  const size_t row = tile ? 24 : graph.configurable_nodes.size() * kLayoutConfigFeatureCount;
  nlohmann::json configs = nlohmann::json::array();
  int64_t next = 0;
  for (size_t c = 0; c < results.size(); ++c) {
    const ConfigMeasurement& result = results[c];
    nlohmann::json config = {{"drawn", c},
                             {"config", result.failure.empty() ? nlohmann::json(next++) : nlohmann::json()},
                             {"same_program_as", result.same_program_as < 0 ? nlohmann::json() : nlohmann::json(result.same_program_as)},
                             {"remeasured", result.remeasured},
                             {"failure", result.failure},
                             {"compile_seconds", result.compile_seconds},
                             {"pass_minimum", result.pass_minimum},
                             {"batch_reference", result.batch_reference},
                             {"seconds", result.seconds}};
    if (!result.failure.empty()) {
      nlohmann::json features = nlohmann::json::array();
      for (size_t k = c * row; k < (c + 1) * row; ++k) {
        if (tile && k < graph.tile_config_features.size()) features.push_back(graph.tile_config_features[k]);
        if (!tile && k < graph.layout_config_features.size()) features.push_back(graph.layout_config_features[k]);
      }
      config["features"] = features;
    }
    configs.push_back(config);
  }
  const nlohmann::json protocol = {{"threads", options.threads},
                                   {"passes", options.passes},
                                   {"batch", options.batch},
                                   {"min_repeats", options.min_repeats},
                                   {"max_repeats", options.max_repeats},
                                   {"min_seconds", options.min_seconds},
                                   {"max_seconds", options.max_seconds},
                                   {"timeout_seconds", options.timeout_seconds},
                                   {"paired", options.paired},
                                   {"seed", options.seed}};
  return nlohmann::json{{"format", "graphcost measurement runs 1"}, {"cpu", cpu_description()}, {"compiler", "Halide 14 JIT"},
                        {"kind", tile ? "tile" : "layout"},         {"protocol", protocol},     {"configs", configs}}
             .dump(1) +
         "\n";
}

MeasuredSummary label_measured(MeasureTarget& target, const std::vector<ConfigMeasurement>& results, const MeasureOptions& options,
                               const std::string& path) {
  TpuGraph& graph = target.graph;
  MeasuredSummary summary;
  summary.configs = static_cast<int64_t>(results.size());
  std::vector<size_t> kept;
  std::vector<int64_t> runtimes;
  const std::vector<double> pass0 = drift_corrected_pass(results, 0), pass1 = drift_corrected_pass(results, 1);
  std::vector<double> first_pass, second_pass, first_raw, second_raw;
  for (size_t c = 0; c < results.size(); ++c) {
    const ConfigMeasurement& result = results[c];
    summary.programs += result.same_program_as < 0 ? 1 : 0;
    summary.remeasured += result.remeasured > 0 && c > 0 ? 1 : 0;
    if (!result.failure.empty()) {
      summary.not_measured.push_back("config " + std::to_string(c) + ": " + result.failure);
      continue;
    }
    kept.push_back(c);
    const double seconds = options.paired && c > 0 ? result.paired_best(results[0].best()) : result.best();
    runtimes.push_back(std::max<int64_t>(1, static_cast<int64_t>(seconds * 1e9 + 0.5)));
    if (c > 0 && std::isfinite(pass0[c]) && std::isfinite(pass1[c])) {
      first_pass.push_back(pass0[c]);
      second_pass.push_back(pass1[c]);
      first_raw.push_back(result.pass_minimum[0]);
      second_raw.push_back(result.pass_minimum[1]);
    }
  }
  const bool tile = graph.kind == GraphKind::Tile;
  if (runtimes.empty() || !results[0].failure.empty()) {
    throw InputError(path, "config 0", tile ? "measured (the kernel untiled)" : "measured (the module's own layouts)",
                     results.empty() ? "no configs" : results[0].failure);
  }
  graph.config_count = static_cast<int32_t>(runtimes.size());
  if (tile) {
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
  graph.provenance += "; runtimes measured on " + cpu_description() + " through Halide 14's JIT, " +
                      (options.threads == 1 ? std::string("one thread") : std::to_string(options.threads) + " threads") +
                      ", the minimum of up to " + std::to_string(options.max_repeats) + " timed runs after a warm-up, " +
                      std::to_string(options.passes) + " pass(es)" +
                      (options.paired ? ", each config timed alternately with config 0 and labelled relative to it" : "");
  summary.measured = static_cast<int64_t>(runtimes.size());
  const auto [fastest, slowest] = std::minmax_element(runtimes.begin(), runtimes.end());
  summary.config0 = static_cast<double>(runtimes[0]) * 1e-9;
  summary.fastest = static_cast<double>(*fastest) * 1e-9;
  summary.slowest = static_cast<double>(*slowest) * 1e-9;
  summary.config0_batches = results[0].pass_minimum;
  if (first_pass.size() >= 2) {
    summary.pass_tau = kendall_tau_b(first_pass.data(), second_pass.data(), first_pass.size());
    summary.raw_pass_tau = kendall_tau_b(first_raw.data(), second_raw.data(), first_raw.size());
    summary.pass_tau_configs = static_cast<int64_t>(first_pass.size());
  }
  return summary;
}

}  // namespace graphcost
