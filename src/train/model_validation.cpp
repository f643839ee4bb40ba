#include "train/model_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <unordered_map>

#include "common/internal_error.h"
#include "metrics/ranking_metrics.h"

namespace graphcost {
namespace {

// The configs a validation or calibration uses of a graph with `total`: all when `limit` is 0 or
// not below it, else a sample seeded by `seed` (the same every epoch), ascending.
std::vector<int32_t> limited_configs(int32_t total, int limit, uint64_t seed) {
  if (limit <= 0 || total <= limit) {
    std::vector<int32_t> all(static_cast<size_t>(total));
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  std::mt19937_64 random(seed);
  std::vector<int32_t> sample = sample_indices(total, static_cast<size_t>(limit), random);
  std::sort(sample.begin(), sample.end());
  return sample;
}

}  // namespace

std::vector<int32_t> listed_or_all_configs(const TpuGraph& graph, const std::vector<int32_t>& configs) {
  if (!configs.empty()) return configs;
  std::vector<int32_t> all(static_cast<size_t>(graph.config_count));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

std::vector<int32_t> sample_indices(int32_t total, size_t count, std::mt19937_64& random) {
  const size_t k = std::min(count, static_cast<size_t>(std::max(total, 0)));
  std::unordered_map<int32_t, int32_t> moved;  // position -> the index now there, where it differs
  auto at = [&](int32_t position) {
    const auto found = moved.find(position);
    return found == moved.end() ? position : found->second;
  };
  std::vector<int32_t> drawn;
  drawn.reserve(k);
  for (size_t i = 0; i < k; ++i) {
    const int32_t position = static_cast<int32_t>(i), other = static_cast<int32_t>(i + random() % static_cast<uint64_t>(total - position));
    const int32_t here = at(position);
    drawn.push_back(at(other));
    moved[other] = here;
  }
  return drawn;
}

std::vector<GraphConfigs> whole_graphs(const std::vector<const TpuGraph*>& graphs) {
  std::vector<GraphConfigs> all;
  for (const TpuGraph* graph : graphs) all.push_back({graph, {}});
  return all;
}

std::pair<const TpuGraph*, std::vector<int32_t>> resolve_graph_configs(const GraphConfigs& item) {
  if (item.stored == nullptr) return {item.graph, listed_or_all_configs(*item.graph, item.configs)};
  check_invariant(!item.configs.empty(), "a stored graph evaluated without a config sample");
  std::vector<int32_t> rows(item.configs.size());
  std::iota(rows.begin(), rows.end(), 0);
  return {&item.stored->select(item.configs), rows};
}

double ranking_metric(const TpuGraph& graph, const std::vector<int32_t>& configs, const std::vector<float>& cost) {
  const std::vector<int32_t> used = listed_or_all_configs(graph, configs);
  if (cost.size() != used.size()) {
    throw InternalError("ranking_metric: " + std::to_string(cost.size()) + " costs for " + std::to_string(used.size()) + " configs");
  }
  const std::vector<double> all_targets = config_ranking_targets(graph);
  std::vector<double> y;
  for (int32_t c : used) y.push_back(all_targets[static_cast<size_t>(c)]);
  const std::vector<int32_t> order = order_by_cost(cost);
  return graph.kind == GraphKind::Tile ? tile_score(y, order) : layout_kendall_tau(y, order);
}

std::optional<LabelledConfigs> labelled_configs(const GraphConfigs& item) {
  if (item.graph->runtimes_hidden) return std::nullopt;
  const auto [graph, used] = resolve_graph_configs(item);
  return LabelledConfigs{graph, used, config_ranking_targets(*graph)};
}

double evaluate_model(CostModel& model, const std::vector<GraphConfigs>& graphs) {
  double total = 0;
  int counted = 0;
  for (const GraphConfigs& item : graphs) {
    const std::optional<LabelledConfigs> labelled = labelled_configs(item);
    if (!labelled) continue;
    const TpuGraph& graph = *labelled->graph;
    const std::vector<int32_t>& used = labelled->used;
    const std::vector<double>& y = labelled->targets;
    if (used.size() < 2 || std::all_of(used.begin(), used.end(),
                                       [&](int32_t c) { return y[static_cast<size_t>(c)] == y[static_cast<size_t>(used.front())]; })) {
      continue;
    }
    total += ranking_metric(graph, used, model.predict(model.prepare(graph), used));
    ++counted;
  }
  return counted > 0 ? total / counted : std::numeric_limits<double>::quiet_NaN();
}

double evaluate_model(CostModel& model, const std::vector<const TpuGraph*>& graphs) { return evaluate_model(model, whole_graphs(graphs)); }

std::vector<GraphConfigs> with_config_limit(std::vector<GraphConfigs> items, int limit) {
  for (size_t i = 0; i < items.size(); ++i) {
    GraphConfigs& item = items[i];
    if (!item.configs.empty()) continue;
    const int32_t total = item.stored != nullptr ? item.stored->config_count() : item.graph->config_count;
    if (item.stored != nullptr || (limit > 0 && total > limit)) item.configs = limited_configs(total, limit, 1000003ull + i);
  }
  return items;
}

}  // namespace graphcost
