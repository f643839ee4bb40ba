#include "train/runtime_calibration.h"

#include <algorithm>
#include <cmath>

namespace graphcost {

RuntimeCalibration fit_runtime_calibration(CostModel& model, const std::vector<GraphConfigs>& graphs) {
  double cross = 0, cost_square = 0, runtime_square = 0;
  RuntimeCalibration calibration;
  int64_t degrees_of_freedom = 0;
  for (const GraphConfigs& item : graphs) {
    const std::optional<LabelledConfigs> labelled = labelled_configs(item);  // none: runtimes hidden
    if (!labelled) continue;
    const std::vector<int32_t>& used = labelled->used;
    std::vector<double> log_runtime;  // of the used configs' ranking targets
    for (int32_t c : used) {
      const double target = labelled->targets[static_cast<size_t>(c)];
      log_runtime.push_back(target > 0 ? std::log(target) : std::nan(""));
    }
    if (used.size() < 2 || std::any_of(log_runtime.begin(), log_runtime.end(), [](double v) { return !std::isfinite(v); })) continue;
    const std::vector<float> cost = model.predict(model.prepare(*labelled->graph), used);
    double mean_cost = 0, mean_runtime = 0;
    for (size_t i = 0; i < used.size(); ++i) mean_cost += cost[i], mean_runtime += log_runtime[i];
    mean_cost /= static_cast<double>(used.size());
    mean_runtime /= static_cast<double>(used.size());
    for (size_t i = 0; i < used.size(); ++i) {
      const double dc = cost[i] - mean_cost, dr = log_runtime[i] - mean_runtime;
      cross += dc * dr, cost_square += dc * dc, runtime_square += dr * dr;
    }
    const auto [lowest, highest] = std::minmax_element(cost.begin(), cost.end());
    calibration.cost_range = std::max(calibration.cost_range, static_cast<double>(*highest - *lowest));
    const int64_t nodes = labelled->graph->node_count;
    calibration.nodes_min = calibration.graphs == 0 ? nodes : std::min(calibration.nodes_min, nodes);
    calibration.nodes_max = std::max(calibration.nodes_max, nodes);
    degrees_of_freedom += static_cast<int64_t>(used.size()) - 1;  // one mean per graph
    calibration.configs += static_cast<int64_t>(used.size());
    ++calibration.graphs;
  }
  if (cost_square > 0 && runtime_square > 0 && cross > 0) {  // else not fitted (slope 0); the counts stay
    calibration.log_runtime_per_score = cross / cost_square;
    calibration.r2 = std::min(1.0, cross * cross / (cost_square * runtime_square));  // rounding can pass 1
    // What the slope leaves of the within-graph variance, per remaining degree of freedom.
    const double residual_square = std::max(0.0, runtime_square - cross * cross / cost_square);
    calibration.residual_sd = std::sqrt(residual_square / static_cast<double>(std::max<int64_t>(1, degrees_of_freedom - 1)));
  }
  if (calibration.cost_range <= 0) calibration.cost_range = 0, calibration.nodes_min = calibration.nodes_max = 0;
  return calibration;
}

RuntimeCalibration fit_runtime_calibration(CostModel& model, const std::vector<const TpuGraph*>& graphs) {
  return fit_runtime_calibration(model, whole_graphs(graphs));
}

}  // namespace graphcost
