// Model validation: scoring a model on labelled graphs as the competition does (Kendall tau-b for
// layout, the tile score for tile), on all of a graph's configs or a chosen subset, in memory or
// from a config store: training's validation, `evaluate-model` and the runtime calibration. (The
// competition's evaluator, which scores submissions, is graphcost-eval in evaluation/.)
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "data/config_store.h"
#include "data/tpu_graph.h"
#include "model/cost_model.h"

namespace graphcost {

// One labelled graph and which of its configs a fit or an evaluation may use (empty: all). Lets
// experiments hold configs out of a graph (docs/experiments.md).
// A graph from a config store has `stored` set: `configs` are then indices into the store (never
// empty: a store is read in samples) and `graph` is its structure.
struct GraphConfigs {
  const TpuGraph* graph = nullptr;
  std::vector<int32_t> configs;
  StoredGraph* stored = nullptr;
};

// Every config of each graph.
std::vector<GraphConfigs> whole_graphs(const std::vector<const TpuGraph*>& graphs);
// `configs`, or every config of `graph` (0..config_count-1) when none are listed.
std::vector<int32_t> listed_or_all_configs(const TpuGraph& graph, const std::vector<int32_t>& configs);
// The graph an evaluation reads and the configs it uses: a stored graph's selected rows (then
// numbered 0..k-1), or the graph itself with its listed configs (all when none are listed).
std::pair<const TpuGraph*, std::vector<int32_t>> resolve_graph_configs(const GraphConfigs& item);
// A labelled graph's configs as an evaluation reads them (resolve_graph_configs) with every config's
// ranking target; none for a graph whose runtimes are hidden.
struct LabelledConfigs {
  const TpuGraph* graph = nullptr;
  std::vector<int32_t> used;
  std::vector<double> targets;  // config_ranking_targets(*graph), every config of the graph
};
std::optional<LabelledConfigs> labelled_configs(const GraphConfigs& item);
// `items` with each graph's configs cut to at most `limit` (0: no limit), a seeded sample the same
// every time (stored graphs always get a list).
std::vector<GraphConfigs> with_config_limit(std::vector<GraphConfigs> items, int limit);
// `count` of `total` configs drawn without replacement (a partial Fisher-Yates shuffle that keeps
// only the swapped positions: memory and time grow with `count`, not `total`), in draw order.
std::vector<int32_t> sample_indices(int32_t total, size_t count, std::mt19937_64& random);

// Mean Kendall tau-b (layout) or mean tile score (tile) of `model` over `graphs` (labelled; the
// listed configs only). Graphs whose runtimes are hidden or all equal are skipped.
double evaluate_model(CostModel& model, const std::vector<GraphConfigs>& graphs);
double evaluate_model(CostModel& model, const std::vector<const TpuGraph*>& graphs);
// The ranking metric of `cost` (lower = predicted faster) against `graph`'s runtimes on `configs`
// (empty: all): Kendall tau-b for layout, the tile score for tile.
double ranking_metric(const TpuGraph& graph, const std::vector<int32_t>& configs, const std::vector<float>& cost);

}  // namespace graphcost
