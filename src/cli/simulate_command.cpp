#include "cli/simulate_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/units.h"
#include "hlo/graph_file.h"
#include "metrics/kendall_tau.h"
#include "metrics/ranking_metrics.h"
#include "simulator/cost_simulator.h"
#include "simulator/hardware_profile.h"
#include "simulator/program_from_graph.h"

namespace graphcost {
namespace {

struct Simulated {
  TpuGraph graph;
  std::vector<double> simulated;  // seconds, per config
  std::vector<double> measured;   // per config: seconds (layout) or runtime / normalizer (tile); empty when hidden
  RebuiltProgram rebuilt;         // layout files: how the program was rebuilt (nodes dropped after pricing)
};

Simulated simulate_file(const std::string& path, const HardwareModel& hardware) {
  Simulated result;
  result.graph = load_graph_file(path).graph;
  const TpuGraph& graph = result.graph;
  const size_t configs = static_cast<size_t>(graph.config_count);
  if (graph.kind == GraphKind::Layout) {
    result.rebuilt = rebuild_program(graph);
    const LayoutProgram program(std::move(result.rebuilt.nodes), result.rebuilt.configurable, hardware);
    IncrementalLayoutRuntime runtime(program);
    const size_t width = static_cast<size_t>(graph.configurable_count()) * kLayoutConfigFeatureCount;
    std::vector<int8_t> config(width);
    for (size_t c = 0; c < configs; ++c) {
      std::copy_n(graph.layout_config_features.begin() + static_cast<std::ptrdiff_t>(c * width), width, config.begin());
      result.simulated.push_back(runtime.runtime(config));
    }
  } else {
    const TileKernel kernel = rebuild_tile_kernel(graph);
    for (const std::vector<int64_t>& tile : tiles_of_configs(graph)) result.simulated.push_back(tile_runtime(kernel, tile, hardware));
  }
  if (!graph.runtimes_hidden) {
    for (size_t c = 0; c < configs; ++c) {
      double value = static_cast<double>(graph.config_runtime_ns[c]) * 1e-9;
      if (graph.kind == GraphKind::Tile)
        value = static_cast<double>(graph.config_runtime_ns[c]) / static_cast<double>(graph.config_runtime_normalizers_ns[c]);
      result.measured.push_back(value);
    }
  }
  return result;
}

size_t distinct_values(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return static_cast<size_t>(std::unique(values.begin(), values.end()) - values.begin());
}

double relative_spread(const std::vector<double>& values) {
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return values.empty() || *low <= 0 ? std::nan("") : (*high - *low) / *low;
}

std::string csv_field(const std::string& text) {
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

nlohmann::json number_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr); }

struct Scores {
  double tau = std::nan(""), slowdown_at_5 = std::nan(""), pair_accuracy = std::nan("");
};

Scores score(const Simulated& s) {
  Scores scores;
  if (s.measured.empty() || s.simulated.size() < 2) return scores;
  const std::vector<int32_t> order = order_by_cost(s.simulated);
  // tau-b on the values (not on positions, as the Kaggle metric): configs the simulator prices the
  // same are ties, not an order it chose; NaN when it prices every config the same.
  scores.tau = kendall_tau_b(s.simulated.data(), s.measured.data(), s.simulated.size());
  scores.slowdown_at_5 = slowdown_at_k(s.measured, order, 5);
  scores.pair_accuracy = ordered_pair_accuracy(s.measured, order);
  return scores;
}

nlohmann::json to_json(const Simulated& s, const Scores& scores) {
  const TpuGraph& g = s.graph;
  nlohmann::json out = {{"file", g.source},
                        {"kind", graph_kind_name(g.kind)},
                        {"nodes", g.node_count},
                        {"configs", g.config_count},
                        {"simulated_seconds_min", *std::min_element(s.simulated.begin(), s.simulated.end())},
                        {"simulated_seconds_max", *std::max_element(s.simulated.begin(), s.simulated.end())},
                        {"simulated_spread", number_or_null(relative_spread(s.simulated))},
                        {"simulated_distinct", distinct_values(s.simulated)},
                        {"labelled", !s.measured.empty()}};
  if (g.kind == GraphKind::Layout) {
    const RebuiltProgram& r = s.rebuilt;
    out["configurable_nodes"] = g.configurable_count();
    out["rebuild"] = {{"convolutions", r.convolutions},
                      {"convolutions_order_ambiguous", r.convolutions_order_ambiguous},
                      {"dots", r.dots},
                      {"dots_from_dimensions", r.dots_from_dimensions},
                      {"dots_from_shapes", r.dots_from_shapes},
                      {"dots_unresolved", r.dots_unresolved},
                      {"mxu_ops_missing_operands", r.mxu_ops_missing_operands}};
  }
  if (!s.measured.empty()) {
    out["measured_spread"] = number_or_null(relative_spread(s.measured));
    out["measured_unit"] = g.kind == GraphKind::Tile ? "runtime / normalizer" : "seconds";
    out["kendall_tau"] = number_or_null(scores.tau);
    out["slowdown_at_5"] = number_or_null(scores.slowdown_at_5);
    out["ordered_pair_accuracy"] = number_or_null(scores.pair_accuracy);
    if (g.kind == GraphKind::Layout) out["simulated_over_measured_config_0"] = s.simulated[0] / s.measured[0];
  }
  return out;
}

void print_text(const Simulated& s, const Scores& scores) {
  const TpuGraph& g = s.graph;
  std::printf("%s: %s graph, %d nodes, %d configs\n", printable(g.source).c_str(), graph_kind_name(g.kind), g.node_count, g.config_count);
  if (g.kind == GraphKind::Layout) {
    const RebuiltProgram& r = s.rebuilt;
    std::printf(
        "  rebuilt program: %d configurable nodes; %d convolutions (%d with an ambiguous operand order), %d dots "
        "(%d contracting dims from `dimensions`, %d from shapes, %d unresolved)",
        g.configurable_count(), r.convolutions, r.convolutions_order_ambiguous, r.dots, r.dots_from_dimensions, r.dots_from_shapes,
        r.dots_unresolved);
    if (r.mxu_ops_missing_operands > 0) std::printf("; %d with one operand priced as vector ops", r.mxu_ops_missing_operands);
    std::printf("\n");
  }
  const auto [low, high] = std::minmax_element(s.simulated.begin(), s.simulated.end());
  std::printf("  simulated: %s .. %s, relative spread %.4f, %zu distinct runtimes\n", format_duration(*low).c_str(),
              format_duration(*high).c_str(), relative_spread(s.simulated), distinct_values(s.simulated));
  if (s.measured.empty()) {
    std::printf("  measured: hidden (no runtimes in the file)\n");
    return;
  }
  const auto [mlow, mhigh] = std::minmax_element(s.measured.begin(), s.measured.end());
  if (g.kind == GraphKind::Tile)
    std::printf("  measured: runtime / normalizer %.4f .. %.4f, relative spread %.4f\n", *mlow, *mhigh, relative_spread(s.measured));
  else
    std::printf("  measured: %s .. %s, relative spread %.4f; config 0 simulated / measured %.3f\n", format_duration(*mlow).c_str(),
                format_duration(*mhigh).c_str(), relative_spread(s.measured), s.simulated[0] / s.measured[0]);
  if (std::isnan(scores.tau)) {
    std::printf("  the simulator's order against the measured runtimes: Kendall tau-b undefined (%s), top-5 slowdown %.4f\n",
                distinct_values(s.simulated) < 2 ? "it prices every config the same" : "the measured runtimes are all equal",
                scores.slowdown_at_5);
    return;
  }
  std::printf("  the simulator's order against the measured runtimes: Kendall tau-b %.4f, top-5 slowdown %.4f, ordered pairs %.4f\n",
              scores.tau, scores.slowdown_at_5, scores.pair_accuracy);
}

}  // namespace

int run_simulate_command(const SimulateCommandOptions& options) {
  if (!options.gemm.empty()) return run_simulate_gemm(options);
  if (options.paths.empty()) throw InputError("", "paths", "one or more files to simulate (or --gemm FILE.csv)", "none");
  if (!options.out.empty()) check_output_path(options.out, options.paths);
  const HardwareModel hardware = hardware_profile(options.hardware);
  nlohmann::json files = nlohmann::json::array();
  std::ostringstream csv;
  csv << "file,config,simulated_seconds,measured\n";
  csv.precision(17);
  for (const std::string& path : options.paths) {
    const Simulated s = simulate_file(path, hardware);
    const Scores scores = score(s);
    if (options.json) files.push_back(to_json(s, scores));
    else print_text(s, scores);
    for (size_t c = 0; c < s.simulated.size(); ++c) {
      csv << csv_field(s.graph.source) << ',' << c << ',' << s.simulated[c] << ',';
      if (!s.measured.empty()) csv << s.measured[c];
      csv << '\n';
    }
  }
  if (options.json) {
    std::cout << nlohmann::json({{"hardware", options.hardware}, {"constants", hardware_profile_json(hardware)}, {"files", files}}).dump(2)
              << "\n";
  }
  if (!options.out.empty()) write_file_atomically(options.out, csv.str());
  return 0;
}

CLI::App* add_simulate_command(CLI::App& app, SimulateCommandOptions& simulate) {
  CLI::App* simulate_command = app.add_subcommand(
      "simulate", "Price every config of a file with the cost simulator (gen's labeller); on measured files, its tau and top-5 slowdown");
  simulate_command->add_option("paths", simulate.paths,
                               "layout or tile .npz files, or modules (HLO text, protos, tuning records: imported on the fly)");
  simulate_command->add_option("--out", simulate.out,
                               "CSV of every config: file, config, simulated_seconds, measured; with --gemm, the rows with predicted_s");
  simulate_command->add_option(
      "--hardware", simulate.hardware,
      "the simulator's constants: nominal (default, what gen labels with), tpu-v5e, tpu-v6e, or a JSON file of {\"field\": number}");
  simulate_command->add_flag("--json", simulate.json, "print JSON instead of text");
  simulate_command->add_option("--gemm", simulate.gemm,
                               "a CSV of matrix multiplications (M,N,K,dtype[,median_s][,family]) to price instead of files");
  simulate_command->add_flag("--fit", simulate.fit,
                             "with --gemm: fit the profile's efficiencies to the rows, and show how they hold on rows left out");
  return simulate_command;
}

}  // namespace graphcost
