#include "cli/rank_command.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "hlo/graph_file.h"
#include "hlo/hlo_import.h"
#include "hlo/hlo_layout_writer.h"
#include "learners/learner_file.h"
#include "metrics/ranking_metrics.h"
#include "model/config_explainer.h"
#include "model/cost_model.h"
#include "model/layout_inference.h"
#include "train/model_validation.h"

namespace graphcost {
namespace {

void check_kinds(const CostModel& model, const std::string& model_path, const TpuGraph& graph) {
  if (model.config().kind != graph.kind) {
    throw InputError(model_path, "kind", std::string("a ") + graph_kind_name(graph.kind) + " model for " + printable(graph.source),
                     std::string("a ") + graph_kind_name(model.config().kind) + " model");
  }
}

// `costs` when every one is finite; else InputError naming the config and what may be wrong.
std::vector<float> checked_costs(std::vector<float> costs, const TpuGraph& graph, const char* cause) {
  for (size_t i = 0; i < costs.size(); ++i) {
    if (!std::isfinite(costs[i])) {
      throw InputError(graph.source, "predicted cost of config " + std::to_string(i), std::string("a finite number (") + cause + ")",
                       std::to_string(costs[i]));
    }
  }
  return costs;
}

std::vector<float> checked_costs(CostModel& model, const TpuGraph& graph, int threads) {
  return checked_costs(model.predict(model.prepare(graph), 64, threads), graph, "values in the file or the model out of range");
}

std::string calibration_note(const RuntimeCalibration& calibration) {
  if (!calibration.fitted()) return "speedups: - (the model has no runtime calibration: its costs rank configs but are not times)";
  char text[200];
  std::snprintf(text, sizeof text,
                "speedups over config 0 from the model's runtime calibration (R^2 %.2f over %lld configs of %lld graphs)", calibration.r2,
                static_cast<long long>(calibration.configs), static_cast<long long>(calibration.graphs));
  return text;
}

// A graph's configs ranked by a model file or a learner file (tune --model-out), with how far each
// config is predicted to be faster than config 0 where the costs say so.
struct RankedConfigs {
  std::vector<float> costs;
  std::function<SpeedupEstimate(int32_t)> speedup;
  bool calibrated = false;
  bool intervals = false;  // a model's speedups come with a 95% interval; a learner's are one figure
  std::string note;        // where the speedups come from, or why there are none
};

RankedConfigs rank_with_model(const RankCommandOptions& options, const TpuGraph& graph) {
  auto model = std::make_shared<CostModel>(CostModel::load(options.model));
  check_kinds(*model, options.model, graph);
  RankedConfigs ranked;
  ranked.costs = checked_costs(*model, graph, options.threads);
  ranked.calibrated = model->calibration().fitted();
  ranked.intervals = true;
  ranked.note = calibration_note(model->calibration());
  ranked.speedup = [model, nodes = graph.node_count, costs = ranked.costs](int32_t config) {
    return model->calibration().estimate_speedup(costs[0], costs[static_cast<size_t>(config)], nodes);
  };
  return ranked;
}

// A learner fitted by `tune` to this program's own measurements. xgboost predicts log runtimes, so
// its speedups over config 0 are the learner's own prediction (no interval: it keeps no held-out
// residuals); ridge's costs are standardised per program and a weighed learner's blend ranks: no times.
RankedConfigs rank_with_learner(const RankCommandOptions& options, const TpuGraph& graph) {
  const std::unique_ptr<Learner> learner = load_learner_file(options.model, graph);
  RankedConfigs ranked;
  ranked.costs = checked_costs(learner->predict(listed_or_all_configs(graph, {})), graph, "the learner file is damaged?");
  const std::string name = name_of(learner_names(), learner->kind());
  const bool log_runtimes = learner->costs_are_log_runtimes();
  ranked.calibrated = log_runtimes;
  ranked.note = log_runtimes ? "speedups over config 0 as the " + name + " learner predicts them (fitted to this program's measurements)"
                             : "speedups: - (the " + name + " learner's costs rank configs but are not times)";
  ranked.speedup = [log_runtimes, name, costs = ranked.costs](int32_t config) {
    SpeedupEstimate estimate;
    if (!log_runtimes) {
      estimate.reason = "the " + name + " learner's costs are not times";
      return estimate;
    }
    estimate.supported = true;
    estimate.value = estimate.low = estimate.high = std::exp(static_cast<double>(costs[0]) - costs[static_cast<size_t>(config)]);
    return estimate;
  };
  return ranked;
}

}  // namespace

int run_rank_command(const RankCommandOptions& options) {
  const TpuGraph graph = load_graph_file(options.path).graph;
  const RankedConfigs ranked = is_learner_file(options.model) ? rank_with_learner(options, graph) : rank_with_model(options, graph);
  const std::vector<float>& costs = ranked.costs;
  const std::vector<int32_t> order = order_by_cost(costs);
  std::vector<int32_t> rank_of(order.size());
  for (size_t r = 0; r < order.size(); ++r) rank_of[static_cast<size_t>(order[r])] = static_cast<int32_t>(r);
  const size_t shown = std::min(order.size(), static_cast<size_t>(std::max(1, options.top)));
  const auto& speedup = ranked.speedup;
  std::string unsupported_reason;  // of the first row without a speedup
  for (size_t r = 0; r < shown && unsupported_reason.empty(); ++r) unsupported_reason = speedup(order[r]).reason;
  if (options.json) {
    nlohmann::json top = nlohmann::json::array();
    for (size_t r = 0; r < shown; ++r) {
      nlohmann::json row = {{"rank", r + 1}, {"config", order[r]}, {"cost", costs[static_cast<size_t>(order[r])]}};
      const SpeedupEstimate estimate = speedup(order[r]);
      row["speedup_over_config_0"] = estimate.supported ? nlohmann::json(estimate.value) : nlohmann::json(nullptr);
      if (estimate.supported && estimate.low < estimate.high) row["speedup_interval"] = {estimate.low, estimate.high};
      top.push_back(row);
    }
    std::cout << nlohmann::json(
                     {{"file", graph.source},
                      {"kind", graph_kind_name(graph.kind)},
                      {"nodes", graph.node_count},
                      {"configurable_nodes", graph.configurable_count()},
                      {"configs", graph.config_count},
                      {"model", options.model},
                      {"calibrated", ranked.calibrated},
                      {"speedup_note", unsupported_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(unsupported_reason)},
                      {"config_0_rank", rank_of[0] + 1},
                      {"top", top}})
                     .dump(2)
              << "\n";
    return 0;
  }
  std::printf("%s: %s graph, %d nodes, %d configurable, %d configs; model %s\n", printable(graph.source).c_str(),
              graph_kind_name(graph.kind), graph.node_count, graph.configurable_count(), graph.config_count,
              printable(options.model).c_str());
  std::printf("%6s %8s %16s %30s\n", "rank", "config", "predicted cost",
              ranked.intervals ? "speedup vs config 0 (95%)" : "speedup vs config 0");
  for (size_t r = 0; r < shown; ++r) {
    char factor[64] = "-";
    const SpeedupEstimate estimate = speedup(order[r]);
    if (estimate.supported && estimate.low < estimate.high) {
      std::snprintf(factor, sizeof factor, "%.3fx (%.3f-%.3f)", estimate.value, estimate.low, estimate.high);
    } else if (estimate.supported) {
      std::snprintf(factor, sizeof factor, "%.3fx", estimate.value);
    }
    std::printf("%6zu %8d %16.5f %30s\n", r + 1, order[r], static_cast<double>(costs[static_cast<size_t>(order[r])]), factor);
  }
  std::printf("config 0%s ranks %d of %zu\n", graph.names.empty() ? "" : " (the module's own layouts)", rank_of[0] + 1, order.size());
  std::printf("%s\n", ranked.note.c_str());
  if (ranked.calibrated && !unsupported_reason.empty()) std::printf("speedups: - where not given: %s\n", unsupported_reason.c_str());
  return 0;
}

int run_search_command(const SearchCommandOptions& options) {
  CostModel model = CostModel::load(options.model);
  // --out tuned.hlo: the module's text with the found layouts, so the module itself is kept.
  const bool module_out = is_hlo_text_path(options.out);
  GraphFile file = load_graph_file(options.path);
  if (module_out && (!file.module || !file.module->from_text)) {
    throw InputError(options.out, "--out", "an .npz (a .hlo output needs an HLO text input to write the layouts into)", options.path);
  }
  TpuGraph& graph = file.graph;
  check_kinds(model, options.model, graph);
  if (graph.kind != GraphKind::Layout) throw InputError(options.path, "kind", "a layout graph (search changes layouts)", "a tile graph");
  if (graph.configurable_count() == 0) {
    throw InputError(options.path, "configurable nodes", "at least one (search changes their layouts)",
                     "none: every config is one program");
  }
  if (!options.out.empty()) check_output_path(options.out, {options.path, options.model});
  const PreparedGraph prepared = model.prepare(graph);
  const LayoutInference inference(model, prepared);
  std::vector<int32_t> all(static_cast<size_t>(graph.config_count));
  for (int32_t c = 0; c < graph.config_count; ++c) all[static_cast<size_t>(c)] = c;
  const std::vector<float> costs = inference.predict(all, 2);
  const int32_t start = order_by_cost(costs).front();
  GreedyLayoutSearch search(inference, graph, layout_config_values(graph, start), options.rounds, options.candidates);
  int last_round = -1;
  while (!search.step(64)) {
    if (!options.quiet && search.rounds() != last_round) {
      last_round = search.rounds();
      std::fprintf(stderr, "search round %d/%d: best cost %.5f (%d nodes changed)\n", last_round + 1, options.rounds,
                   static_cast<double>(search.best_cost()), search.changed_nodes());
    }
  }
  const RuntimeCalibration& calibration = model.calibration();
  std::printf("%s: started from config %d (the best listed, cost %.5f); found cost %.5f after %d rounds, %d nodes changed\n",
              printable(graph.source).c_str(), start, static_cast<double>(search.start_cost()), static_cast<double>(search.best_cost()),
              search.rounds(), search.changed_nodes());
  const SpeedupEstimate over_config_0 = calibration.estimate_speedup(costs[0], search.best_cost(), graph.node_count);
  const SpeedupEstimate over_best = calibration.estimate_speedup(search.start_cost(), search.best_cost(), graph.node_count);
  if (over_config_0.supported && over_best.supported) {
    std::printf("predicted speedup: %.3fx over config 0 (95%%: %.3f-%.3f), %.3fx over the best listed config\n", over_config_0.value,
                over_config_0.low, over_config_0.high, over_best.value);
  } else {
    std::printf("predicted speedup: none, because %s\n", (over_config_0.supported ? over_best : over_config_0).reason.c_str());
  }
  if (options.out.empty()) return 0;
  const std::vector<int8_t>& found = search.best();
  graph.layout_config_features.insert(graph.layout_config_features.end(), found.begin(), found.end());
  graph.config_count += 1;
  if (module_out) {
    write_file_atomically(options.out, module_text_with_layouts(*file.module, file.computation_first, graph, graph.config_count - 1),
                          {options.path, options.model});
    std::printf("wrote %s: the module with the found config's layouts written in (docs/tuning.md)\n", printable(options.out).c_str());
    return 0;
  }
  if (!graph.runtimes_hidden) {
    std::printf("note: %s is written without the input's measured runtimes (the found config has none)\n", printable(options.out).c_str());
  }
  graph.config_runtime_ns.assign(static_cast<size_t>(graph.config_count), 0);
  graph.runtimes_hidden = true;
  save_tpu_graph(graph, options.out);
  std::printf("wrote %s: the %d configs of the input, then the found one (config %d)\n", printable(options.out).c_str(),
              graph.config_count - 1, graph.config_count - 1);
  return 0;
}

CLI::App* add_rank_command(CLI::App& app, RankCommandOptions& rank) {
  CLI::App* rank_command = app.add_subcommand("rank", "Rank one graph's configs with a model: the best K, predicted costs and speedups");
  rank_command->add_option("path", rank.path, "an .npz, or HLO text (.hlo/.txt: imported on the fly)")->required();
  rank_command
      ->add_option("--model", rank.model,
                   "model file (models/layout_xla.npz, ...) or a learner file tune --model-out wrote for this program")
      ->required();
  rank_command->add_option("--top", rank.top, "configs to list")->capture_default_str()->check(CLI::Range(1, 100000000));
  rank_command->add_option("--threads", rank.threads, "worker threads")->capture_default_str()->check(CLI::Range(1, 256));
  rank_command->add_flag("--json", rank.json, "print JSON instead of text");
  return rank_command;
}

CLI::App* add_search_command(CLI::App& app, SearchCommandOptions& search) {
  CLI::App* search_command =
      app.add_subcommand("search", "Search better layouts with a model (greedy, from the best listed config) and write them");
  search_command->add_option("path", search.path, "a layout .npz, or HLO text (.hlo/.txt: imported on the fly)")->required();
  search_command->add_option("--model", search.model, "layout model file")->required();
  search_command->add_option("--out", search.out,
                             "write the input's configs plus the found one here (.npz), or, for HLO text, the module with the found "
                             "config's layouts written in (.hlo/.txt)");
  search_command->add_option("--rounds", search.rounds, "greedy rounds")->capture_default_str()->check(CLI::Range(1, 1000));
  search_command->add_option("--candidates", search.candidates, "candidate rows per node")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  search_command->add_flag("-q,--quiet", search.quiet, "no progress on stderr");
  return search_command;
}

}  // namespace graphcost
